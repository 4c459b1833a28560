// Issue 11 point 2: the soak script itself, at its small scale (`npm run soak -- --small`: 100
// tasks in bursts, 3 SSE clients, action storms, config reloads through the API and the file).
// The script checks legal states, leaked slots, caps, gapless ids and complete SSE delivery
// (decision 154); this test proves the script runs green and reports what it checked.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { SoakResult } from '../../bench/soak.js';
import { skipUnlessCi } from '../support/ci.js';
import { tempDir } from '../support/tmp.js';

const SOAK = fileURLToPath(new URL('../../dist/bench/soak.js', import.meta.url));

describe.skipIf(
  skipUnlessCi(
    !existsSync(SOAK) && 'dist/bench/soak.js is not built (npm run build)',
    'npm run soak -- --small',
  ),
)('npm run soak -- --small', () => {
  it('holds every invariant under bursts, storms, reloads and SSE clients', {
    timeout: 300_000,
  }, async () => {
    const out = join(tempDir('svc-soak-test-'), 'soak.json');
    const run = await promisify(execFile)(process.execPath, [SOAK, '--small', '--json', out], {
      timeout: 280_000,
    }).catch((err: { stderr?: string; code?: number }) => err);
    const result = JSON.parse(readFileSync(out, 'utf8')) as SoakResult;
    expect(result.failures, (run as { stderr?: string }).stderr).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.tasks).toBe(100);
    expect(Object.keys(result.by_state).sort()).toEqual(
      Object.keys(result.by_state)
        .filter((s) => s === 'done' || s === 'aborted')
        .sort(),
    );
    // The load did what it says: storms were refused some of the time, reloads happened, a client
    // reconnected, and both caps were reached without being passed.
    expect(result.storm_requests).toBeGreaterThan(0);
    expect(result.cap_changes).toBeGreaterThan(0);
    expect(result.file_reloads).toBeGreaterThan(0);
    expect(result.client_reconnects).toBeGreaterThan(0);
    expect(result.max_running).toBeLessThanOrEqual(8);
    expect(result.max_running_project_b).toBeLessThanOrEqual(2);
  });
});
