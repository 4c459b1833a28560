/**
 * Where the real-CLI tests find `claude` and `codex`: `SVC_REAL_<NAME>` when set (a path, or
 * `skip`), else the pinned build in the test harness package test/real-clis (installed by
 * `npm ci --prefix test/real-clis`, which .ci/run does; decisions 048 and 202). Never PATH, and
 * never svc's own node_modules: the real CLIs are not svc's dependencies.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const REAL_CLIS_DIR = join(import.meta.dirname, '..', 'real-clis');

/** The binary to run, or null when the test should be skipped. */
export function realCli(env: string, name: 'claude' | 'codex'): string | null {
  const set = process.env[env];
  if (set === 'skip') return null;
  if (set) return set;
  const installed = join(REAL_CLIS_DIR, 'node_modules', '.bin', name);
  return existsSync(installed) ? installed : null;
}
