/**
 * What a chat's composer completes from (decision 166): the agent's skills and the workspace's
 * files, read from the directory the chat works in (its own worktree or its task's).
 */
import { probeRunner } from '../agents/index.js';
import { SvcError } from '../errors.js';
import { gitRaw } from '../git/index.js';
import { resolveEnvironment } from '../proc/index.js';
import type { ChatCore } from './core.js';
import type { ChatRow } from './table.js';

/** The directory the chat works in, or the refusal that names why it has none. */
function workspace(core: ChatCore, chat: ChatRow, action: string): string {
  const cwd = core.cwdOf(chat);
  if (cwd) return cwd;
  if (chat.linked_task_id !== null) {
    const task = core.d.engine.tasks.get(chat.linked_task_id);
    throw new SvcError(
      'task_has_no_worktree',
      `task ${chat.linked_task_id} has lost its worktree`,
      {
        state: task?.state ?? 'archived',
        action,
        task_id: chat.linked_task_id,
      },
    );
  }
  throw new SvcError('invalid_state', `chat ${chat.id} has no worktree (it is ${chat.state})`, {
    state: chat.state,
  });
}

/** `GET /v1/chats/{id}/skills` (decision 166): the adapter's listing, cached per chat. */
export async function chatSkills(
  core: ChatCore,
  id: number,
  refresh: boolean,
): Promise<Record<string, unknown>> {
  const chat = core.load(id);
  const cwd = workspace(core, chat, 'skills');
  const adapter = core.d.agents.adapter(chat.agent);
  const head = {
    agent: chat.agent,
    supported: adapter?.traits.supports_skill_listing === true && adapter.listSkills !== undefined,
    sigil: adapter?.traits.skill_sigil ?? '',
    position: adapter?.traits.skill_position ?? 'leading',
  };
  if (!adapter?.listSkills || !head.supported) return { ...head, skills: [] };
  if (refresh || !core.skillCache.has(id)) {
    const loc = core.d.agents.where(adapter);
    if (!loc.path) return { ...head, skills: [], error: `${chat.agent} is not installed` };
    const run = probeRunner(loc.path, resolveEnvironment(core.d.config.current().environment), cwd);
    core.skillCache.set(id, await adapter.listSkills({ path: loc.path, run, cwd }));
  }
  const list = core.skillCache.get(id) ?? null;
  return list === null
    ? { ...head, skills: [], error: `${chat.agent} could not list its skills` }
    : { ...head, skills: list };
}

/** `GET /v1/chats/{id}/files` (decision 166): tracked and untracked files git does not ignore. */
export async function chatFiles(
  core: ChatCore,
  id: number,
  limit: number,
): Promise<Record<string, unknown>> {
  const chat = core.load(id);
  const cwd = workspace(core, chat, 'files');
  const r = await gitRaw(cwd, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
  if (r.code !== 0)
    throw new SvcError('invalid_state', `git cannot list the workspace: ${r.stderr.trim()}`, {
      state: chat.state,
      reason: 'git_error',
    });
  const all = [...new Set(r.stdout.split('\0').filter((f) => f !== ''))].sort();
  return { files: all.slice(0, limit), truncated: all.length > limit, total: all.length };
}
