/** Temporary directories that each test owns and that vanish after it. */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** A fresh temp dir (real path, so comparisons with paths git reports hold), removed when the test ends. */
export function tempDir(prefix = 'svc-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  try {
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  } catch {
    // Called outside a test (e.g. in beforeAll): the caller cleans up.
  }
  return dir;
}
