/**
 * A chat's life outside its turns (SPEC §4.5, decisions 162–164): opening one (a worktree of its
 * own on a new or existing branch, or a stopped task's), listing, closing, archiving and deleting,
 * with the branch claims a chat and a task must not share. Hand-off is `handoff.ts`'s.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { branchNameProblem, builtinBranch } from '../engine/index.js';
import { SvcError } from '../errors.js';
import {
  addWorktree,
  addWorktreeForBranch,
  branchExists,
  deleteBranchIfEmpty,
  freshStartPoint,
  GitError,
  gitRaw,
  isDirty,
  pruneWorktrees,
  removeWorktree,
} from '../git/index.js';
import { type AgentAdapter, gatePredicate } from '../plugin/index.js';
import type { Project } from '../projects/index.js';
import { taskContext } from './context.js';
import type { ChatCore } from './core.js';
import { archiveHandedOff, handedOffBranchRefusal } from './handed-off.js';
import {
  BUSY_CHAT_STATES,
  type ChatListQuery,
  type ChatState,
  type CreateChat,
  LIVE_CHAT_STATES,
  type OpenTaskChat,
} from './schema.js';
import type { ChatRow } from './table.js';
import { chatView } from './view.js';

/** Task states a chat may open on (SPEC §4.5). */
export const CHAT_TASK_STATES = ['blocked', 'awaiting_gate', 'done', 'aborted'] as const;

export class ChatLifecycle {
  /** Chat creation runs git between choosing the id and inserting it: one at a time. */
  private creating: Promise<unknown> = Promise.resolve();

  constructor(private readonly core: ChatCore) {}

  /**
   * A project delete (SPEC §4.2) takes its chats with it (the rows cascade): refused while one of
   * them runs a turn, as for a running task; otherwise their own worktrees are removed first so
   * nothing is left for gc. Branches are kept, as a forced delete keeps tasks' branches with work.
   */
  async projectDeleting(projectId: number, projectPath: string): Promise<void> {
    const chats = this.core.table.list(['project_id = ?'], [projectId], 1_000_000, 0);
    const busy = chats.find((c) => BUSY_CHAT_STATES.includes(c.state));
    if (busy)
      throw new SvcError('invalid_state', `chat ${busy.id} is running a turn; cancel it first`, {
        state: busy.state,
        reason: 'chat_running',
      });
    for (const c of chats) {
      if (c.linked_task_id === null && c.worktree_path && existsSync(c.worktree_path))
        await removeWorktree(projectPath, c.worktree_path, true).catch(() => {
          rmSync(c.worktree_path, { recursive: true, force: true });
        });
    }
  }

  /** SPEC §4.5 list: newest first; `archived` covers archived, handed_off and closed; `state` wins. */
  list(q: ChatListQuery): Array<Record<string, unknown>> {
    const where: string[] = [];
    const params: unknown[] = [];
    const inList = (states: readonly string[]) => {
      where.push(`state IN (${states.map(() => '?').join(', ')})`);
      params.push(...states);
    };
    if (q.state && q.state.length > 0) inList(q.state);
    else if (q.archived === 'true') inList(['archived', 'handed_off', 'closed']);
    else if (q.archived !== 'all') inList(LIVE_CHAT_STATES);
    if (q.project_id !== undefined) {
      where.push('project_id = ?');
      params.push(q.project_id);
    }
    if (q.task_id !== undefined) {
      where.push('linked_task_id = ?');
      params.push(q.task_id);
    }
    if (q.archived_before !== undefined) {
      where.push('ended_at IS NOT NULL AND ended_at < ?');
      params.push(q.archived_before);
    }
    if (q.archived_since !== undefined) {
      where.push('ended_at IS NOT NULL AND ended_at >= ?');
      params.push(q.archived_since);
    }
    return this.core.table
      .list(where, params, q.limit ?? 100, q.offset ?? 0)
      .map((c) => chatView(this.core, c));
  }

  // ─── opening ─────────────────────────────────────────────────────────────────────────────

  /** SPEC §2.5: the request's agent, else the first registered adapter that can resume. */
  private pickAgent(requested: string | undefined, restricted: boolean): AgentAdapter {
    const { agents } = this.core.d;
    let adapter: AgentAdapter | undefined;
    if (requested !== undefined) {
      adapter = agents.adapter(requested);
      if (!adapter)
        throw new SvcError(
          'validation_failed',
          `agent ${requested} is not a registered adapter (${agents
            .adapters()
            .map((a) => a.name)
            .join(', ')})`,
          { field: 'agent' },
        );
    } else {
      adapter = agents.adapters().find((a) => a.traits.supports_resume);
      if (!adapter)
        throw new SvcError('agent_cannot_resume', 'no registered adapter can resume its session', {
          field: 'agent',
        });
    }
    if (!adapter.traits.supports_resume)
      throw new SvcError(
        'agent_cannot_resume',
        `${adapter.name} cannot resume its own session, so it cannot hold a chat`,
        { agent: adapter.name },
      );
    if (restricted && !adapter.traits.supports_restricted_resume)
      throw new SvcError(
        'validation_failed',
        `${adapter.name} cannot keep a resumed turn restricted, and this chat must run restricted`,
        { field: 'agent' },
      );
    return adapter;
  }

  private claimConflict(project: Project, branch: string, exceptChat = 0): SvcError | null {
    const task = this.core.d.engine.tasks.claimOf(project.id, branch);
    const chat = this.core.table.claimOf(project.id, branch, LIVE_CHAT_STATES, exceptChat);
    const by = task ? `task:${task.id}` : chat ? `chat:${chat.id}` : null;
    if (!by) return null;
    return new SvcError(
      'invalid_state',
      `branch ${branch} is already claimed by ${by.replace(':', ' ')}`,
      {
        branch,
        claimed_by: by,
      },
    );
  }

  /** `POST /v1/chats` (SPEC §4.5): a worktree of its own, on a new branch or an existing one. */
  create(body: CreateChat): Promise<ChatRow> {
    const run = this.creating.then(() => this.createNow(body));
    this.creating = run.catch(() => {});
    return run;
  }

  private async createNow(body: CreateChat): Promise<ChatRow> {
    const { d } = this.core;
    const project = d.projects.requireField(body.project_id);
    const adapter = this.pickAgent(body.agent, false);
    const id = this.core.table.nextId();
    const base = project.default_branch;
    let branch: string;
    if (body.existing_branch === true && body.branch_name !== undefined) {
      branch = body.branch_name.trim();
      const problem = branchNameProblem(branch);
      if (problem)
        throw new SvcError('validation_failed', `branch_name ${problem}`, { field: 'branch_name' });
      if (!(await branchExists(project.path, branch)))
        throw new SvcError(
          'validation_failed',
          `branch ${branch} does not exist in ${project.name}`,
          {
            field: 'branch_name',
          },
        );
      const conflict = this.claimConflict(project, branch);
      if (conflict) throw conflict;
    } else {
      // Decision 162: the task's pattern first; a name a task already holds gets the chat prefix.
      const candidates = [
        builtinBranch(id, body.title),
        builtinBranch(id, body.title).replace(/^svc\//, 'svc/chat-'),
      ];
      let chosen: string | null = null;
      let conflict: SvcError | null = null;
      for (const name of candidates) {
        conflict = this.claimConflict(project, name);
        if (!conflict && !(await branchExists(project.path, name))) {
          chosen = name;
          break;
        }
        conflict ??= new SvcError(
          'invalid_state',
          `branch ${name} already exists in ${project.name}`,
          {
            branch: name,
            claimed_by: 'git',
          },
        );
      }
      if (!chosen) throw conflict as SvcError;
      branch = chosen;
      if (!(await branchExists(project.path, base)))
        throw new SvcError('validation_failed', `base branch ${base} does not exist`, {
          field: 'project_id',
        });
    }
    const path = join(d.paths.worktreesDir, `chat-${id}`);
    await pruneWorktrees(project.path);
    try {
      if (body.existing_branch) await addWorktreeForBranch(project.path, path, branch);
      else {
        const start = d.config.current().fetch_base_branch
          ? await freshStartPoint(project.path, base)
          : base;
        await addWorktree(project.path, path, branch, start);
      }
    } catch (err) {
      const message = err instanceof GitError ? err.message : (err as Error).message;
      // git refuses a branch checked out elsewhere (the project's own checkout, a foreign worktree).
      if (/already (checked out|used by worktree)/.test(message))
        throw new SvcError('invalid_state', `branch ${branch} is checked out elsewhere`, {
          branch,
          claimed_by: 'checkout',
        });
      throw new SvcError('invalid_state', `cannot create the chat's worktree: ${message}`, {
        reason: 'git_error',
      });
    }
    try {
      return d.store.tx(() => {
        const now = this.core.now();
        const got = this.core.table.insert({
          id,
          project_id: project.id,
          title: body.title,
          agent: adapter.name,
          model: body.model ?? adapter.catalogue.default_model,
          effort: body.effort ?? adapter.catalogue.default_effort,
          state: 'idle',
          linked_task_id: null,
          worktree_path: path,
          branch_name: branch,
          base_branch: base,
          existing_branch: body.existing_branch ? 1 : 0,
          restricted: 0,
          context: null,
          created_at: now,
          updated_at: now,
        });
        d.events.append(
          'chat.created',
          { project_id: project.id, chat_id: got },
          { title: body.title, agent: adapter.name, branch },
        );
        return this.core.load(got);
      });
    } catch (err) {
      // Nothing half-written: the worktree goes with the row that never was.
      await removeWorktree(project.path, path, true).catch(() => {});
      if (!body.existing_branch) await gitRaw(project.path, ['branch', '-D', branch]);
      throw err;
    }
  }

  /** `POST /v1/tasks/{id}/chat` (SPEC §4.5 table). */
  openOnTask(taskId: number, body: OpenTaskChat): ChatRow {
    const { d } = this.core;
    const task = d.engine.get(taskId);
    if (!(CHAT_TASK_STATES as readonly string[]).includes(task.state))
      throw new SvcError('invalid_state', `cannot open a chat on a task that is ${task.state}`, {
        state: task.state,
      });
    const open = this.core.openChatOn(task.id);
    if (open)
      throw new SvcError(
        'task_locked_by_chat',
        `task ${task.id} already has open chat ${open.id}`,
        {
          chat_id: open.id,
        },
      );
    if (!task.worktree_path || !existsSync(task.worktree_path))
      throw new SvcError('task_has_no_worktree', `task ${task.id} has no worktree to chat in`, {
        state: task.state,
        action: 'chat',
        task_id: task.id,
      });
    let defaults: Record<string, unknown> = {};
    try {
      defaults =
        (JSON.parse(task.workflow_snapshot) as { defaults?: Record<string, unknown> }).defaults ??
        {};
    } catch {}
    const restricted = task.restricted === 1 || defaults.permission_mode === 'restricted';
    // Resolution as for repair: request, task overrides, workflow defaults, adapter default.
    const requested =
      body.agent ??
      task.agent_override ??
      (typeof defaults.agent === 'string' ? defaults.agent : undefined);
    const adapter = this.pickAgent(requested, restricted);
    const pick = (key: 'model' | 'effort', override: string | null): string => {
      const v =
        body[key] ??
        override ??
        (typeof defaults[key] === 'string' ? (defaults[key] as string) : undefined);
      if (v !== undefined && (requested === adapter.name || body[key] !== undefined)) return v;
      return key === 'model' ? adapter.catalogue.default_model : adapter.catalogue.default_effort;
    };
    const context = taskContext(
      task,
      this.core.runs.ofTask(task.id),
      gatePredicate(this.core.d.registry),
    );
    return d.store.tx(() => {
      // Re-checked inside the transaction: two opens racing leave one chat.
      const again = this.core.openChatOn(task.id);
      if (again)
        throw new SvcError(
          'task_locked_by_chat',
          `task ${task.id} already has open chat ${again.id}`,
          {
            chat_id: again.id,
          },
        );
      const now = this.core.now();
      const title = body.title?.trim() ? body.title : `Chat on task ${task.id}: ${task.title}`;
      const id = this.core.table.insert({
        project_id: task.project_id,
        title,
        agent: adapter.name,
        model: pick('model', task.model_override),
        effort: pick('effort', task.effort_override),
        state: 'idle',
        linked_task_id: task.id,
        worktree_path: '',
        branch_name: task.branch_name ?? '',
        base_branch: task.base_branch,
        existing_branch: 0,
        restricted: restricted ? 1 : 0,
        context,
        created_at: now,
        updated_at: now,
      });
      // No task.* event: the task table does not change (SPEC §3.2 rule 6, §6 rule 1).
      d.events.append(
        'chat.created',
        { project_id: task.project_id, chat_id: id },
        { title, agent: adapter.name, task_id: task.id },
      );
      return this.core.load(id);
    });
  }

  // ─── endings ─────────────────────────────────────────────────────────────────────────────

  /** `POST /v1/chats/{id}/close` (SPEC §4.5): a task-linked chat ends; the task lock lifts. */
  async close(id: number): Promise<ChatRow> {
    const chat = this.core.load(id);
    if (chat.linked_task_id === null)
      throw new SvcError('invalid_state', `chat ${id} is not on a task; archive it instead`, {
        state: chat.state,
        reason: 'not_task_linked',
      });
    if (!LIVE_CHAT_STATES.includes(chat.state))
      throw new SvcError('invalid_state', `cannot close a chat that is ${chat.state}`, {
        state: chat.state,
      });
    this.closeNow(chat, 'human');
    await this.core.stopLive(id);
    return this.core.load(id);
  }

  private closeNow(chat: ChatRow, by: 'human' | 'task_cancel'): void {
    this.core.d.store.tx(() => {
      const now = this.core.load(chat.id);
      if (!LIVE_CHAT_STATES.includes(now.state)) return;
      if (this.core.moveChat(now, 'closed', {}, LIVE_CHAT_STATES)) {
        this.core.d.events.append(
          'chat.closed',
          { project_id: chat.project_id, chat_id: chat.id },
          { task_id: chat.linked_task_id, by },
        );
      }
    });
    // Closing first, stopping after: the turn's end finds the chat closed and leaves it so.
    this.core.live.get(chat.id)?.abort.abort();
  }

  /** A locked task's cancel: the live turn stops and the chat closes with the abort (SPEC §4.5). */
  closeForTaskCancel(taskId: number): void {
    const chat = this.core.openChatOn(taskId);
    if (chat) this.closeNow(chat, 'task_cancel');
  }

  /** `POST /v1/chats/{id}/archive` (decision 164): idle only, worktree removed, branch kept unless empty. */
  async archive(
    id: number,
    force: boolean,
  ): Promise<{ chat: ChatRow; branch?: Record<string, unknown> }> {
    const { d } = this.core;
    const chat = this.core.load(id);
    if (chat.linked_task_id !== null) throw this.core.linkedRefusal(chat, 'archive');
    if (chat.state === 'handed_off') {
      const move = (c: ChatRow, to: ChatState, from: readonly ChatState[]) =>
        this.core.moveChat(c, to, {}, from);
      return {
        chat: archiveHandedOff(
          { store: d.store, events: d.events, load: (n) => this.core.load(n), move },
          chat,
        ),
      };
    }
    if (chat.state !== 'idle')
      throw new SvcError('invalid_state', `cannot archive a chat that is ${chat.state}`, {
        state: chat.state,
      });
    const project = d.projects.require(chat.project_id);
    if (
      !force &&
      chat.worktree_path &&
      existsSync(chat.worktree_path) &&
      (await isDirty(chat.worktree_path)) === true
    )
      throw new SvcError(
        'invalid_state',
        `chat ${id}'s worktree has uncommitted changes; commit them or archive with force`,
        {
          state: chat.state,
          reason: 'worktree_dirty',
        },
      );
    const moved = d.store.tx(() => {
      const now = this.core.load(id);
      if (!this.core.moveChat(now, 'archived', { worktree_path: '' }, ['idle'])) return false;
      d.events.append(
        'chat.archived',
        { project_id: chat.project_id, chat_id: id },
        { branch: chat.branch_name },
      );
      return true;
    });
    if (!moved) {
      const now = this.core.load(id);
      throw new SvcError('invalid_state', `cannot archive a chat that is ${now.state}`, {
        state: now.state,
      });
    }
    if (chat.worktree_path && existsSync(chat.worktree_path))
      await removeWorktree(project.path, chat.worktree_path, true).catch(() => {
        rmSync(chat.worktree_path, { recursive: true, force: true });
      });
    let branch: Record<string, unknown> | undefined;
    if (
      d.config.current().delete_empty_branch_on_archive &&
      !chat.existing_branch &&
      chat.branch_name
    ) {
      const r = await deleteBranchIfEmpty(project.path, chat.base_branch, chat.branch_name);
      branch = { name: chat.branch_name, ...r };
    }
    this.core.skillCache.delete(id);
    return { chat: this.core.load(id), ...(branch ? { branch } : {}) };
  }

  /**
   * `DELETE /v1/chats/{id}` (decision 163): an archived or closed chat's row, turns and transcripts
   * go; `delete_branch=true` also force-deletes the branch of a chat of its own, never one another
   * task or chat works on.
   */
  async remove(id: number, deleteBranch: boolean): Promise<Record<string, unknown>> {
    const { d } = this.core;
    const chat = this.core.load(id);
    if (chat.state !== 'archived' && chat.state !== 'closed' && chat.state !== 'handed_off')
      throw new SvcError(
        'invalid_state',
        `only an archived, handed-off or closed chat can be deleted; chat ${id} is ${chat.state}`,
        {
          state: chat.state,
        },
      );
    if (deleteBranch && chat.linked_task_id !== null)
      throw this.core.linkedRefusal(chat, 'delete_branch');
    if (deleteBranch && chat.handoff_task_id !== null) throw handedOffBranchRefusal(chat);
    let branch: Record<string, unknown> | undefined;
    if (deleteBranch && chat.branch_name) {
      const project = d.projects.require(chat.project_id);
      const conflict = this.claimConflict(project, chat.branch_name, id);
      if (conflict) throw conflict;
      if (!(await branchExists(project.path, chat.branch_name)))
        branch = { name: chat.branch_name, result: 'missing' };
      else {
        const r = await gitRaw(project.path, ['branch', '-D', chat.branch_name]);
        branch =
          r.code === 0
            ? { name: chat.branch_name, result: 'deleted' }
            : { name: chat.branch_name, result: 'error', error: r.stderr.trim() };
      }
    }
    d.store.tx(() => {
      this.core.table.delete(id);
      d.events.append(
        'chat.deleted',
        { project_id: chat.project_id, chat_id: id },
        {
          ...(branch ? { branch } : {}),
        },
      );
    });
    rmSync(join(d.paths.transcriptsDir, `chat-${id}`), { recursive: true, force: true });
    this.core.skillCache.delete(id);
    return { id, deleted: true, ...(branch ? { branch } : {}) };
  }
}
