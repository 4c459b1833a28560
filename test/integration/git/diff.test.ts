// Issue 16: the git side of a task's diff — a worktree with its untracked files against a commit
// without touching the user's index, and the byte bound that cuts at a file boundary (tested
// here with small bounds; the route's 16 MiB is tested in test/integration/review).
import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  diffFiles,
  diffText,
  mergeBase,
  resolveCommit,
  withUntrackedIndex,
} from '../../../kernel/git/index.js';
import { gitRepo } from '../../support/git.js';

function repoWithWork() {
  const repo = gitRepo({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' } });
  const base = repo.git('rev-parse', 'HEAD');
  repo.write('a.txt', `${'alpha line\n'.repeat(50)}`);
  repo.write('b.txt', `${'beta line\n'.repeat(50)}`);
  repo.write('new.txt', `${'new line\n'.repeat(50)}`);
  return { repo, base };
}

describe('diffs of a worktree', () => {
  it('adds untracked files through a private index and leaves the real one byte for byte', async () => {
    const { repo, base } = repoWithWork();
    const index = join(repo.path, '.git', 'index');
    const before = readFileSync(index);
    const mtime = statSync(index).mtimeMs;
    const text = await withUntrackedIndex(repo.path, undefined, (env) =>
      diffText({ cwd: repo.path, from: base, to: null, env }),
    );
    expect(text.body.toString()).toContain('diff --git a/new.txt b/new.txt\nnew file mode 100644');
    expect(readFileSync(index).equals(before)).toBe(true);
    expect(statSync(index).mtimeMs).toBe(mtime);
    // Without the private index, git leaves the untracked file out.
    const plain = await diffText({ cwd: repo.path, from: base, to: null });
    expect(plain.body.toString()).not.toContain('new.txt');
  });

  it('sees a change the stat data hides, as git does for an index written in the same instant', async () => {
    const repo = gitRepo({ files: { 'README.md': 'x\n' } });
    // Stat data that cannot tell: the same size and mtime (ctime not trusted), and an index
    // written at that very mtime — only git's racy-entry check reads the content again.
    repo.git('config', 'core.trustctime', 'false');
    const file = join(repo.path, 'same.txt');
    const then = Math.floor(Date.now() / 1000) - 100;
    writeFileSync(file, 'one\n');
    utimesSync(file, then, then);
    const base = repo.commit('same');
    writeFileSync(file, 'two\n');
    utimesSync(file, then, then);
    utimesSync(join(repo.path, '.git', 'index'), then, then);
    const text = await withUntrackedIndex(repo.path, undefined, (env) =>
      diffText({ cwd: repo.path, from: base, to: null, env }),
    );
    expect(text.body.toString()).toContain('-one\n+two\n');
  });

  it('cuts at the last file boundary under the limit, across chunk edges', async () => {
    const { repo, base } = repoWithWork();
    const full = await withUntrackedIndex(repo.path, undefined, (env) =>
      diffText({ cwd: repo.path, from: base, to: null, env }),
    );
    const text = full.body.toString();
    const second = text.indexOf('diff --git a/b.txt');
    const third = text.indexOf('diff --git a/new.txt');
    for (const limit of [third, third + 10, text.length - 1]) {
      const cut = await withUntrackedIndex(repo.path, undefined, (env) =>
        diffText({ cwd: repo.path, from: base, to: null, env }, { limit }),
      );
      expect(cut.truncated, String(limit)).toBe(true);
      expect(cut.body.toString(), String(limit)).toBe(text.slice(0, third));
    }
    const tight = await withUntrackedIndex(repo.path, undefined, (env) =>
      diffText({ cwd: repo.path, from: base, to: null, env }, { limit: second - 1 }),
    );
    expect(tight.body.toString()).toBe(
      text.slice(0, text.indexOf('diff --git a/b.txt') > 0 ? 0 : 0),
    );
    expect(tight.body.length).toBe(0);
    const roomy = await withUntrackedIndex(repo.path, undefined, (env) =>
      diffText({ cwd: repo.path, from: base, to: null, env }, { limit: text.length }),
    );
    expect(roomy).toEqual({ body: full.body, truncated: false });
  });

  it('lists files and cuts the list itself at a whole record', async () => {
    const { repo, base } = repoWithWork();
    repo.git('mv', 'c.txt', 'c-moved.txt');
    const all = await withUntrackedIndex(repo.path, undefined, (env) =>
      diffFiles({ cwd: repo.path, from: base, to: null, env }),
    );
    expect(all.truncated).toBe(false);
    expect(all.files).toEqual([
      { path: 'a.txt', status: 'modified', additions: 50, deletions: 1, binary: false },
      { path: 'b.txt', status: 'modified', additions: 50, deletions: 1, binary: false },
      {
        path: 'c-moved.txt',
        old_path: 'c.txt',
        status: 'renamed',
        additions: 0,
        deletions: 0,
        binary: false,
      },
      { path: 'new.txt', status: 'added', additions: 50, deletions: 0, binary: false },
    ]);
    const cut = await withUntrackedIndex(repo.path, undefined, (env) =>
      diffFiles({ cwd: repo.path, from: base, to: null, env }, { limit: 120 }),
    );
    expect(cut.truncated).toBe(true);
    expect(cut.files.length).toBeGreaterThan(0);
    expect(cut.files.length).toBeLessThan(4);
    expect(all.files.slice(0, cut.files.length)).toEqual(cut.files);
  });

  it('resolves commits and merge bases, and refuses what names none', async () => {
    const { repo, base } = repoWithWork();
    expect(await resolveCommit(repo.path, 'main')).toBe(base);
    expect(await resolveCommit(repo.path, 'no-such-branch')).toBeNull();
    expect(await resolveCommit(repo.path, '--output=x')).toBeNull();
    expect(await mergeBase(repo.path, base, 'main')).toBe(base);
  });
});
