// The bench's svc RSS is the daemon's RSS and its spawner's private pages (decision 256): the
// pages both processes map (the Node binary's) are counted once, where adding the two RSS counted
// them twice. Here this process plays the daemon, with a real spawner as its child.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { rssFiguresOf } from '../../../bench/lib/env.js';
import { privateBytes, spawnerFigures } from '../../../bench/lib/spawner.js';
import { localLauncher, SpawnerLauncher, spawnerScript } from '../../../kernel/launch/index.js';

const rssOfSelf = () =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;

describe('svc’s RSS in the bench', () => {
  const script = spawnerScript();
  if (!script) throw new Error('the spawner is not built: run `npm run build` first');
  const spawner = new SpawnerLauncher(script, localLauncher);
  afterAll(() => spawner.close());

  it('reads a process’s private pages, fewer than its RSS', () => {
    const own = privateBytes(process.pid);
    expect(own).toBeGreaterThan(0);
    expect(own).toBeLessThan(rssOfSelf());
    expect(privateBytes(2 ** 22 + 12345)).toBe(0); // no such process
  });

  it('adds the spawner’s private pages to the daemon’s RSS, and reports the plain sum beside it', async () => {
    await spawner.launch({ file: 'true', args: [], cwd: '/', env: {}, stdin: '' }).closed;
    // The spawner is a live process: a page it touches between two readings changes its RSS by
    // 4 KB. The figures are compared only across a moment it held still (read the same before
    // and after), so the comparison stays exact.
    const still = () => {
      for (let i = 0; i < 20; i++) {
        const first = spawnerFigures(process.pid);
        const before = rssOfSelf();
        const r = rssFiguresOf(process.pid);
        const after = rssOfSelf();
        const last = spawnerFigures(process.pid);
        if (first.rss === last.rss && first.private === last.private)
          return { kid: first, before, r, after };
      }
      throw new Error('the spawner never held still for a reading');
    };
    const { kid, before, r, after } = still();
    expect(kid.rss).toBeGreaterThan(0);
    // Most of a spawner's RSS is the Node binary's pages, mapped here too.
    expect(kid.private).toBeGreaterThan(0);
    expect(kid.private).toBeLessThan(kid.rss / 2);
    expect(r.summed - r.svc).toBe(kid.rss - kid.private);
    expect(r.svc).toBeGreaterThanOrEqual(Math.min(before, after) + kid.private - (4 << 20));
    expect(r.svc).toBeLessThanOrEqual(Math.max(before, after) + kid.private + (4 << 20));
  });
});
