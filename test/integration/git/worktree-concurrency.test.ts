// Issue 11: git's worktree administration is not safe to run concurrently in one repository — an
// `add` reads every other entry under .git/worktrees and fails on one another process is writing
// ("failed to read .git/worktrees/N/commondir", "could not open .../locked"). Eight tasks admitted
// at once in one project hit it; svc queues worktree adds, removes and prunes per repository.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addWorktree, removeWorktree } from '../../../kernel/git/index.js';
import { gitRepo } from '../../support/git.js';
import { tempDir } from '../../support/tmp.js';

describe('worktree operations on one repository', () => {
  it('many concurrent adds and removes all succeed', async () => {
    const repo = gitRepo();
    const dir = tempDir('svc-wt-');
    const n = 16;
    const paths = Array.from({ length: n }, (_, i) => join(dir, `w${i}`));
    const results = await Promise.allSettled(
      paths.map((p, i) => addWorktree(repo.path, p, `race/${i}`, 'main')),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    for (const p of paths) expect(existsSync(join(p, 'README.md'))).toBe(true);

    const mixed = await Promise.allSettled([
      ...paths.slice(0, n / 2).map((p) => removeWorktree(repo.path, p, false)),
      ...Array.from({ length: n / 2 }, (_, i) =>
        addWorktree(repo.path, join(dir, `x${i}`), `race/x${i}`, 'main'),
      ),
    ]);
    expect(mixed.filter((r) => r.status === 'rejected')).toEqual([]);
    for (const p of paths.slice(0, n / 2)) expect(existsSync(p)).toBe(false);
    expect(repo.git('worktree', 'list').split('\n')).toHaveLength(1 + n);
  });
});
