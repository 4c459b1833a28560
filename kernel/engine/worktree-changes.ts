/**
 * Uncommitted work is never invisible (issue 19 point 9, decision 204). svc never commits for the
 * user (SPEC), so a task whose worktree holds changes its branch does not have says so:
 * `worktree_changes: {files, additions, deletions, untracked}` on every representation of it.
 *
 * `git status` is too slow to run for every row of a list, so the value is recorded on the row
 * (`tasks.worktree_changes`, migration 0012): at the end of every attempt, before its outcome moves
 * the task (so the transition that announces the task already carries it, and a gate or `done`
 * shows what the step left), and again whenever the task's detail is read (a person may have
 * committed or edited by hand since).
 */
import { existsSync } from 'node:fs';
import { worktreeChanges } from '../git/index.js';
import type { Db } from '../store/index.js';

/**
 * `worktree`'s uncommitted changes as the row keeps them (JSON), or null: no worktree, none on
 * disk, or git could not say.
 */
export async function measureWorktreeChanges(worktree: string | null): Promise<string | null> {
  const changes =
    worktree && existsSync(worktree) ? await worktreeChanges(worktree).catch(() => null) : null;
  return changes ? JSON.stringify(changes) : null;
}

/** Writes a measurement on task `taskId`'s row (inside the caller's transaction, if any). */
export function writeWorktreeChanges(db: Db, taskId: number, changes: string | null): void {
  db.prepare('UPDATE tasks SET worktree_changes = ? WHERE id = ?').run(changes, taskId);
}

/** Measures `worktree` (null: none) and records the result on task `taskId`'s row at once. */
export async function recordWorktreeChanges(
  db: Db,
  taskId: number,
  worktree: string | null,
): Promise<void> {
  writeWorktreeChanges(db, taskId, await measureWorktreeChanges(worktree));
}
