// SPEC §2.8 fan_out merge: each outcome of merging a lane's branch into the parent's worktree,
// against real repositories — including the failures that are neither a merge nor a conflict.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitMerge, mergeLane, pendingMerge } from '../../../kernel/engine/merge.js';
import type { LaneView } from '../../../kernel/plugin/index.js';
import { gitRepo } from '../../support/git.js';

const lane = (branch: string): LaneView => ({
  task_id: 7,
  lane_id: 'pkg',
  lane_order: 0,
  state: 'done',
  branch,
});

/** A repository on `main` with a lane branch that adds `file` with `content`. */
function withLane(file: string, content: string) {
  const repo = gitRepo();
  repo.git('checkout', '-q', '-b', 'lane');
  repo.commit('lane work', { [file]: content });
  repo.git('checkout', '-q', 'main');
  return repo;
}

describe('mergeLane', () => {
  it('merges a lane with --no-ff and a message naming the lane and task, then says already', async () => {
    const repo = withLane('a.txt', 'a\n');
    expect(await mergeLane(repo.path, lane('lane'))).toEqual({ kind: 'merged' });
    expect(repo.git('log', '-1', '--format=%s')).toBe("Merge lane 'pkg' of task 7");
    expect(repo.git('log', '-1', '--format=%P').split(' ')).toHaveLength(2);
    expect(await mergeLane(repo.path, lane('lane'))).toEqual({ kind: 'already' });
  });

  it('is an error naming the lane and branch when the branch does not exist', async () => {
    const repo = gitRepo();
    expect(await mergeLane(repo.path, lane('gone'))).toEqual({
      kind: 'error',
      message: "lane pkg's branch gone does not exist",
    });
  });

  it('reports the conflicted paths and leaves the merge pending', async () => {
    const repo = withLane('same.txt', 'lane side\n');
    repo.commit('main side', { 'same.txt': 'main side\n' });
    expect(await mergeLane(repo.path, lane('lane'))).toEqual({
      kind: 'conflict',
      paths: ['same.txt'],
    });
    expect(await pendingMerge(repo.path)).toEqual({ kind: 'conflicted', paths: ['same.txt'] });
    writeFileSync(join(repo.path, 'same.txt'), 'both\n');
    repo.git('add', 'same.txt');
    expect(await pendingMerge(repo.path)).toEqual({ kind: 'resolved' });
    expect(await commitMerge(repo.path, 'resolved')).toEqual({ kind: 'merged' });
    expect(await pendingMerge(repo.path)).toEqual({ kind: 'none' });
  });

  it("is an error with git's own words when the merge fails without a conflict", async () => {
    const repo = withLane('new.txt', 'from the lane\n');
    // An untracked file the merge would overwrite: git refuses before touching anything.
    writeFileSync(join(repo.path, 'new.txt'), 'untracked\n');
    const r = await mergeLane(repo.path, lane('lane'));
    expect(r.kind).toBe('error');
    expect(r.kind === 'error' && r.message).toMatch(
      /untracked working tree files would be overwritten/,
    );
    expect(await pendingMerge(repo.path)).toEqual({ kind: 'none' });
    expect(existsSync(join(repo.path, '.git', 'MERGE_HEAD'))).toBe(false);
  });
});

describe('commitMerge', () => {
  it("is an error with git's words when there is nothing to commit", async () => {
    const repo = gitRepo();
    const r = await commitMerge(repo.path, 'nothing');
    expect(r.kind).toBe('error');
    expect(r.kind === 'error' && r.message).toMatch(/nothing to commit/);
  });
});
