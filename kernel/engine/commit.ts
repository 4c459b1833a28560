/**
 * `commit: true` (issue 19 point 9, decision 204): after an attempt that succeeded, what the step
 * left in the worktree is committed on the task's branch — `git add -A`, then one commit whose
 * message names the task and the step. Nothing to commit is not an error. The user's git identity
 * and hooks apply; without an identity the commit is authored by `svc <svc@localhost>` rather
 * than failing a step that did its work. Commits of one worktree queue (members of a parallel
 * group share it and would race for its index lock).
 */
import { gitRaw, statusEntries } from '../git/index.js';
import type { TaskRow } from '../store/index.js';

export type CommitResult =
  | { ok: true; commit: string | null; files: number }
  | { ok: false; message: string };

const queues = new Map<string, Promise<unknown>>();

function serially<T>(worktree: string, fn: () => Promise<T>): Promise<T> {
  const run = (queues.get(worktree) ?? Promise.resolve()).then(fn, fn);
  const tail = run.catch(() => {});
  queues.set(worktree, tail);
  void tail.then(() => {
    if (queues.get(worktree) === tail) queues.delete(worktree);
  });
  return run;
}

/** The commit message: a subject naming the task and the step, and why svc made it. */
export function commitMessage(
  task: Pick<TaskRow, 'id' | 'title'>,
  step: { id: string; attempt: number },
): string {
  const title = task.title.replace(/\s+/g, ' ').trim();
  const subject = `svc task ${task.id}, step ${step.id}: ${title}`;
  return `${subject.length > 100 ? `${subject.slice(0, 99)}…` : subject}\n\nCommitted by svc after step ${step.id} (attempt ${step.attempt}) of task ${task.id} succeeded, because the step sets commit: true.\n`;
}

async function hasIdentity(worktree: string): Promise<boolean> {
  const r = await gitRaw(worktree, ['config', 'user.email']);
  return r.code === 0 && r.stdout.trim() !== '';
}

export function commitStepWork(
  worktree: string,
  task: Pick<TaskRow, 'id' | 'title'>,
  step: { id: string; attempt: number },
): Promise<CommitResult> {
  return serially(worktree, async () => {
    const entries = await statusEntries(worktree);
    if (entries === null) return { ok: false, message: `git cannot read the worktree ${worktree}` };
    if (entries.length === 0) return { ok: true, commit: null, files: 0 };
    const add = await gitRaw(worktree, ['add', '-A']);
    if (add.code !== 0) return { ok: false, message: `git add failed: ${add.stderr.trim()}` };
    const identity = (await hasIdentity(worktree))
      ? []
      : ['-c', 'user.name=svc', '-c', 'user.email=svc@localhost'];
    const r = await gitRaw(worktree, [
      ...identity,
      'commit',
      '--quiet',
      '-m',
      commitMessage(task, step),
    ]);
    if (r.code !== 0) {
      // Unstaged again: the worktree stays as the step left it, for the person who looks.
      await gitRaw(worktree, ['reset', '--quiet']);
      return {
        ok: false,
        message: `git commit failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ')}`,
      };
    }
    const head = await gitRaw(worktree, ['rev-parse', 'HEAD']);
    return { ok: true, commit: head.stdout.trim() || null, files: entries.length };
  });
}
