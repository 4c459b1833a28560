// Decision 159: cutting a worktree ahead of admission reads branch tips from the ref files and
// remembers a base's upstream; both must answer exactly what git answers, however refs are stored.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { branchTip, headCommit, knownUpstreamOf, upstreamOf } from '../../../kernel/git/index.js';
import { swapFs } from '../../support/faults.js';
import { bareRemote, gitRepo } from '../../support/git.js';

async function gitSays(repo: string, branch: string): Promise<string | null> {
  return headCommit(repo, `refs/heads/${branch}`);
}

/** Counts the file reads and stats that throw (a missing file read the costly way) until the test ends. */
function failedReads(): () => number {
  let failed = 0;
  const counted = <F extends (...a: never[]) => unknown>(f: F): F =>
    ((...args: Parameters<F>) => {
      try {
        return f(...args);
      } catch (err) {
        failed++;
        throw err;
      }
    }) as F;
  swapFs('readFileSync', counted);
  swapFs('statSync', counted);
  return () => failed;
}

describe('branchTip', () => {
  it('answers as git does for loose, packed, nested, missing and symbolic refs', async () => {
    const repo = gitRepo();
    const first = repo.git('rev-parse', 'HEAD');
    repo.git('branch', 'packed/one');
    repo.git('branch', 'feat');
    repo.git('pack-refs', '--all');
    const second = repo.commit('second');
    repo.git('branch', 'loose/two');
    repo.git('symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
    const names = [
      'main',
      'packed/one',
      'feat',
      'loose/two',
      'feat/under-a-packed-branch',
      'alias',
      'nope',
      'packed',
      'loose/two/deeper',
      'packed/one/deeper',
    ];
    for (const n of names)
      expect(await branchTip(repo.path, n), n).toBe(await gitSays(repo.path, n));
    expect(await branchTip(repo.path, 'packed/one')).toBe(first);
    expect(await branchTip(repo.path, 'loose/two')).toBe(second);
    expect(await branchTip(repo.path, 'alias')).toBe(second);
    expect(await branchTip(repo.path, 'nope')).toBeNull();
  });

  it('answers for a missing branch without a failed read', async () => {
    // A new task's branch is missing by design, as is packed-refs in a repository that never
    // packed: each failed read threw an exception (and built its stack) on every admission.
    const repo = gitRepo();
    const main = repo.git('rev-parse', 'HEAD');
    const failed = failedReads();
    expect(await branchTip(repo.path, 'svc/7-a-new-task')).toBeNull();
    expect(await branchTip(repo.path, 'main')).toBe(main);
    expect(failed()).toBe(0);
  });

  it('sees a branch the moment it is packed away or deleted', async () => {
    const repo = gitRepo();
    repo.git('branch', 'moving');
    const tip = repo.git('rev-parse', 'moving');
    expect(await branchTip(repo.path, 'moving')).toBe(tip);
    repo.git('pack-refs', '--all', '--prune');
    expect(await branchTip(repo.path, 'moving')).toBe(tip);
    repo.git('branch', '-D', 'moving');
    expect(await branchTip(repo.path, 'moving')).toBeNull();
  });

  it('asks git when the files cannot answer plainly', async () => {
    const repo = gitRepo();
    // A damaged loose ref: git's own answer (none), never a guess from the file.
    mkdirSync(join(repo.path, '.git', 'refs', 'heads'), { recursive: true });
    writeFileSync(join(repo.path, '.git', 'refs', 'heads', 'broken'), 'not an object id\n');
    expect(await branchTip(repo.path, 'broken')).toBe(await gitSays(repo.path, 'broken'));
  });
});

describe('knownUpstreamOf', () => {
  it('answers as upstreamOf does and notices a config change', async () => {
    const repo = gitRepo();
    expect(await knownUpstreamOf(repo.path, 'main')).toBeNull();
    bareRemote(repo);
    const up = await knownUpstreamOf(repo.path, 'main');
    expect(up).toEqual(await upstreamOf(repo.path, 'main'));
    expect(up).toEqual({ remote: 'origin', ref: 'refs/heads/main' });
    repo.git('branch', '--unset-upstream', 'main');
    expect(await knownUpstreamOf(repo.path, 'main')).toBeNull();
  });

  it('reads a missing global config file as empty without a failed stat', async () => {
    const repo = gitRepo();
    bareRemote(repo);
    const before = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = join(repo.path, 'no-such-gitconfig');
    onTestFinished(() => {
      if (before === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = before;
    });
    const failed = failedReads();
    expect(await knownUpstreamOf(repo.path, 'main')).toEqual({
      remote: 'origin',
      ref: 'refs/heads/main',
    });
    expect(failed()).toBe(0);
  });
});
