// Decision 248: the spawner's socket lives in a directory under the temp dir, where temp cleaners,
// signals and crashes reach it; these tests hold what the daemon and the spawner do about it.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { localLauncher, SpawnerLauncher, spawnerScript } from '../../../kernel/launch/index.js';
import { tempDir } from '../../support/tmp.js';

const found = spawnerScript();
if (!found) throw new Error('the spawner is not built: run `npm run build` first');
const script = found;
const env = { PATH: process.env.PATH ?? '' };

function parentOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
}

/** Where a launch's program runs: its parent's pid. */
async function parentOfLaunch(l: SpawnerLauncher): Promise<number> {
  const p = l.launch({ file: 'sleep', args: ['60'], cwd: tempDir(), env, stdin: '' });
  await p.spawned;
  const parent = parentOf(p.pid as number);
  p.signal('SIGKILL');
  await p.closed;
  return parent;
}

describe('the spawner’s socket and directory (decision 248)', () => {
  it('leaves no directory when its process cannot be had, forks here meanwhile, and tries again after a minute', async () => {
    const tmp = tempDir();
    let now = 0;
    const troubles: string[] = [];
    const own = new SpawnerLauncher(script, localLauncher, (m) => troubles.push(m), {
      now: () => now,
    });
    const saved = { execPath: process.execPath, tmp: process.env.TMPDIR };
    process.env.TMPDIR = tmp;
    try {
      // Node reports a spawn that fails this way with an 'error' and no 'exit'.
      process.execPath = '/no/such/node';
      const first = own.launch({ file: 'sleep', args: ['60'], cwd: tmp, env, stdin: '' });
      process.execPath = saved.execPath;
      await first.spawned;
      expect(parentOf(first.pid as number)).toBe(process.pid);
      first.signal('SIGKILL');
      await first.closed;
      expect(troubles.join('\n')).toMatch(/the spawner cannot start \(.*ENOENT.*\)/);
      expect(readdirSync(tmp).filter((n) => n.startsWith('svc-spawner-'))).toEqual([]);

      // Within the minute launches fork here without trying another spawner.
      now += 59_000;
      expect(await parentOfLaunch(own)).toBe(process.pid);
      expect(own.pid()).toBeUndefined();
      expect(readdirSync(tmp).filter((n) => n.startsWith('svc-spawner-'))).toEqual([]);

      // After it, the next launch starts one.
      now += 2_000;
      const parent = await parentOfLaunch(own);
      expect(parent).not.toBe(process.pid);
      expect(parent).toBe(own.pid());
    } finally {
      process.execPath = saved.execPath;
      if (saved.tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved.tmp;
      own.close();
    }
  });
});
