/** Temporary directories that each test owns and that vanish after it. */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/**
 * Cleanup hooks run newest first, so a repository made after the app is removed while the app is
 * still open: a git process it started (a worktree add) can recreate an entry under .git between
 * the removal of the children and the rmdir, which fails ENOTEMPTY. rmSync's own retries repeat
 * only the rmdir; this repeats the whole removal, yielding so the child can finish.
 */
async function removeSoon(dir: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (attempt >= 40 || !['ENOTEMPTY', 'EBUSY'].includes(code)) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** A fresh temp dir (real path, so comparisons with paths git reports hold), removed when the test ends. */
export function tempDir(prefix = 'svc-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  try {
    onTestFinished(() => removeSoon(dir));
  } catch {
    // Called outside a test (e.g. in beforeAll): the caller cleans up.
  }
  return dir;
}
