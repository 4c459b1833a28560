// Worktrees cut concurrently from one repository: git reads every linked worktree's metadata while
// adding one, so unserialized adds race ("failed to read .git/worktrees/1/commondir"). The board's
// tests met it creating several tasks at once; admissions of one project must all succeed.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addWorktree, removeWorktree } from '../../../kernel/git/worktree.js';
import { gitRepo } from '../../support/git.js';
import { tempDir } from '../../support/tmp.js';

describe('worktrees of one repository', () => {
  it('are added and removed concurrently without failing each other', async () => {
    const repo = gitRepo();
    const dir = tempDir();
    for (let round = 0; round < 3; round++) {
      const paths = Array.from({ length: 8 }, (_, i) => join(dir, `r${round}-w${i}`));
      const added = await Promise.allSettled(
        paths.map((p, i) => addWorktree(repo.path, p, `b${round}-${i}`, 'main')),
      );
      expect(added.filter((r) => r.status === 'rejected')).toEqual([]);
      const removed = await Promise.allSettled(
        paths.map((p) => removeWorktree(repo.path, p, true)),
      );
      expect(removed.filter((r) => r.status === 'rejected')).toEqual([]);
    }
  });
});
