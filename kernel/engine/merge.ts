/** Merging lane branches back into the parent's worktree (SPEC §2.8 fan_out, merge). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { conflictedPaths, gitRaw } from '../git/index.js';
import type { LaneView, MergeResult } from '../plugin/index.js';

/** Commits need an identity; a machine without one still merges, as `svc`. */
async function identityEnv(worktree: string): Promise<Record<string, string>> {
  const r = await gitRaw(worktree, ['var', 'GIT_COMMITTER_IDENT']);
  return r.code === 0
    ? {}
    : {
        GIT_AUTHOR_NAME: 'svc',
        GIT_AUTHOR_EMAIL: 'svc@localhost',
        GIT_COMMITTER_NAME: 'svc',
        GIT_COMMITTER_EMAIL: 'svc@localhost',
      };
}

export async function mergeLane(worktree: string, lane: LaneView): Promise<MergeResult> {
  const exists = await gitRaw(worktree, [
    'rev-parse',
    '--verify',
    '--quiet',
    `refs/heads/${lane.branch}`,
  ]);
  if (exists.code !== 0)
    return {
      kind: 'error',
      message: `lane ${lane.lane_id}'s branch ${lane.branch} does not exist`,
    };
  const merged = await gitRaw(worktree, [
    'merge-base',
    '--is-ancestor',
    `refs/heads/${lane.branch}`,
    'HEAD',
  ]);
  if (merged.code === 0) return { kind: 'already' };
  const env = await identityEnv(worktree);
  const r = await gitRaw(
    worktree,
    [
      'merge',
      '--no-ff',
      '--no-edit',
      '-m',
      `Merge lane '${lane.lane_id}' of task ${lane.task_id}`,
      `refs/heads/${lane.branch}`,
    ],
    { env },
  );
  if (r.code === 0) return { kind: 'merged' };
  const paths = await conflictedPaths(worktree);
  if (paths.length > 0) return { kind: 'conflict', paths };
  return { kind: 'error', message: (r.stderr || r.stdout).trim() || `git merge exited ${r.code}` };
}

export async function pendingMerge(
  worktree: string,
): Promise<{ kind: 'none' } | { kind: 'conflicted'; paths: string[] } | { kind: 'resolved' }> {
  const dir = await gitRaw(worktree, ['rev-parse', '--path-format=absolute', '--git-dir']);
  if (dir.code !== 0 || !existsSync(join(dir.stdout.trim(), 'MERGE_HEAD'))) return { kind: 'none' };
  const paths = await conflictedPaths(worktree);
  return paths.length > 0 ? { kind: 'conflicted', paths } : { kind: 'resolved' };
}

export async function commitMerge(worktree: string, message: string): Promise<MergeResult> {
  const env = await identityEnv(worktree);
  const r = await gitRaw(worktree, ['commit', '--no-edit', '-q', '-m', message], { env });
  return r.code === 0
    ? { kind: 'merged' }
    : { kind: 'error', message: (r.stderr || r.stdout).trim() };
}
