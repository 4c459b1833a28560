/**
 * Two builds of svc answering the same task list, side by side in one run (issue 22 point 3):
 *
 *   node dist/bench/list-ab.js --against /path/to/other/checkout [--rounds 10] [--tasks 10000]
 *
 * `--against` is another checkout, built (`npm run build`), usually main. One history is seeded
 * (bench/lib/seed.ts, as the api section seeds it) and copied to two data directories; a daemon of
 * each build starts on its copy, and every measure alternates between them walk by walk, so the
 * load of a shared machine falls on both alike. Each walk's bodies are compared byte for byte
 * between the builds, and so are the headers that matter (content type, length, next cursor).
 * Prints the medians and p99 of wall time as the client sees it, and the daemon's CPU (user +
 * system from /proc, 10 ms ticks) per walk; what is printed is what docs/performance.md reports.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type ChildDaemon,
  cleanup,
  cpuMsOf,
  makeRepo,
  prepare,
  QUIET_CONFIG,
  spawnDaemon,
  tempRoot,
} from './lib/env.js';
import { seedHistory } from './lib/seed.js';
import { fmtMs, median, now, p99 } from './lib/stats.js';

const args = process.argv.slice(2);
const arg = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const against = arg('--against');
if (!against) {
  console.error(
    'usage: node dist/bench/list-ab.js --against <built checkout> [--rounds N] [--tasks N]',
  );
  process.exit(2);
}
const rounds = Number(arg('--rounds') ?? 10);
const tasks = Number(arg('--tasks') ?? 10_000);
const firstPages = Number(arg('--first') ?? 200);

interface Side {
  name: string;
  daemon: ChildDaemon;
}

/** Every page of `query` (pages of `limit`), bodies and the headers a client reads. */
async function walk(d: ChildDaemon, query: string, limit: number, all: boolean) {
  const { url, token } = d.api;
  const parts: string[] = [];
  let cursor: string | null = null;
  const t0 = now();
  do {
    const sep = query ? '&' : '';
    const res = await fetch(
      `${url}/v1/tasks?${query}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const body = await res.text();
    if (res.status !== 200) throw new Error(`list ${query} → ${res.status} ${body.slice(0, 200)}`);
    cursor = all ? res.headers.get('x-next-cursor') : null;
    parts.push(
      `${res.headers.get('content-type')} ${res.headers.get('content-length')} ${res.headers.get('x-next-cursor')}\n${body}`,
    );
  } while (cursor);
  return { ms: now() - t0, text: parts.join('\n') };
}

const root = tempRoot('svc-list-ab-');
const repo = makeRepo(root);
const seedPaths = prepare(join(root, 'seed'), QUIET_CONFIG);
seedHistory(seedPaths, repo, { tasks, runsPerTask: 10, events: 1000 });
const bins: Array<[string, string | undefined]> = [
  ['this build', undefined],
  [`--against ${against}`, resolve(against, 'dist/bin/svc.js')],
];
const sides: Side[] = [];
const load0 = loadavg()[0] ?? 0;
try {
  // Inside the try: a build that never answers must not leave the other's daemon running.
  for (const [i, [name, bin]] of bins.entries()) {
    const paths = prepare(join(root, `side${i}`), QUIET_CONFIG);
    mkdirSync(paths.dataDir, { recursive: true, mode: 0o700 });
    copyFileSync(seedPaths.dbFile, paths.dbFile);
    sides.push({ name, daemon: await spawnDaemon(paths, { bin }) });
  }
  const forms: Array<[string, string, number, boolean, number]> = [
    ['first page (100 rows)', '', 100, false, firstPages],
    ['whole list (default)', '', 1000, true, rounds],
    ['whole list archived=all', 'archived=all', 1000, true, rounds],
    ['whole list project_id=1', 'project_id=1', 1000, true, rounds],
    ['whole list state=done', 'state=done', 1000, true, rounds],
  ];
  console.log(`list A/B — ${tasks} tasks; each measure alternates the builds sample by sample`);
  console.log(
    '| Measure | this build, median / p99 | other build, median / p99 | ratio of medians |',
  );
  console.log('|---|---|---|---|');
  for (const [label, query, limit, all, n] of forms) {
    const ms: number[][] = sides.map(() => []);
    const cpu = sides.map(() => 0);
    for (let i = -2; i < n; i++) {
      const texts: string[] = [];
      // Alternate which build goes first, so neither always runs on a warmer machine.
      const order = i % 2 === 0 ? [0, 1] : [1, 0];
      for (const s of order) {
        const { daemon } = sides[s] as Side;
        const c0 = cpuMsOf(daemon.pid);
        const r = await walk(daemon, query, limit, all);
        texts[s] = r.text;
        if (i >= 0) {
          (ms[s] as number[]).push(r.ms);
          cpu[s] = (cpu[s] as number) + cpuMsOf(daemon.pid) - c0;
        }
      }
      if (texts[0] !== texts[1]) throw new Error(`${label}: the builds answered differently`);
    }
    const [a, b] = ms as [number[], number[]];
    const [ca, cb] = cpu.map((c) => fmtMs(c / n));
    console.log(
      `| ${label} | ${fmtMs(median(a))} / ${fmtMs(p99(a))} (CPU ${ca}) | ${fmtMs(median(b))} / ${fmtMs(p99(b))} (CPU ${cb}) | ${(median(a) / median(b)).toFixed(2)}× |`,
    );
  }
  console.log(
    `bodies and headers identical between the builds; load average ${load0.toFixed(1)} → ${(loadavg()[0] ?? 0).toFixed(1)}`,
  );
} finally {
  for (const s of sides) await s.daemon.stop();
  cleanup();
}
