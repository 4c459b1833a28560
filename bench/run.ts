/**
 * `npm run bench`: svc against the physical limit (issue 11). Each figure sits beside a baseline
 * measured in the same run on the same machine, so a loaded machine slows both alike and the
 * ratio stays meaningful. Not part of `npm test`; results and history live in docs/performance.md.
 *
 *   npm run bench                      every section at full size
 *   npm run bench -- --quick           small sizes (a smoke run, figures not comparable)
 *   npm run bench -- --only api,footprint
 *   npm run bench -- --json out.json   also write the raw samples
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { steadyAdmission } from './admission.js';
import { apiAtScale } from './api.js';
import { footprint } from './footprint.js';
import { cleanup } from './lib/env.js';
import { fmtMb, fmtMs, median, p99 } from './lib/stats.js';
import { overhead, summarizeOverhead } from './overhead.js';
import { throughput } from './throughput.js';

interface Row {
  measure: string;
  svc: string;
  baseline: string;
  ratio: string;
  target: string;
  ok: boolean | null;
}

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyArg = args[args.indexOf('--only') + 1];
const only = args.includes('--only') && onlyArg ? new Set(onlyArg.split(',')) : null;
const jsonArg = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const wants = (s: string) => !only || only.has(s);

const SIZES = quick
  ? {
      overhead: 20,
      throughput: 60,
      admission: 40,
      tasks: 1000,
      runs: 10,
      events: 10_000,
      samples: 40,
      starts: 2,
      busy: 10,
    }
  : {
      overhead: 200,
      throughput: 500,
      admission: 200,
      tasks: 10_000,
      runs: 10,
      events: 100_000,
      samples: 200,
      starts: 5,
      busy: 50,
    };

const rows: Row[] = [];
const raw: Record<string, unknown> = { sizes: SIZES };
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : '—');
const log = (s: string) => process.stderr.write(`${s}\n`);

async function main(): Promise<void> {
  const load0 = loadavg()[0] ?? 0;
  if (wants('overhead')) {
    log(`step overhead: ${SIZES.overhead} one-step tasks…`);
    const r = await overhead(SIZES.overhead);
    raw.overhead = r;
    const s = summarizeOverhead(r);
    rows.push({
      measure: `step overhead, create→done median (${SIZES.overhead} tasks)`,
      svc: fmtMs(s.svc),
      baseline: `${fmtMs(s.base)} (worktree add + sh + remove)`,
      ratio: ratio(s.svc, s.base),
      target: 'ratio ≤ 1.3',
      ok: s.ratio <= 1.3 && r.failed === 0,
    });
    rows.push({
      measure: 'step overhead, create→archived median (worktree removed too)',
      svc: fmtMs(s.archived),
      baseline: fmtMs(s.base),
      ratio: ratio(s.archived, s.base),
      target: '',
      ok: null,
    });
    rows.push({
      measure: 'step overhead, p99',
      svc: fmtMs(s.svcP99),
      baseline: fmtMs(s.baseP99),
      ratio: ratio(s.svcP99, s.baseP99),
      target: '',
      ok: null,
    });
  }
  if (wants('throughput')) {
    log(`throughput: ${SIZES.throughput} tasks under max_parallel_tasks 8…`);
    const r = await throughput(SIZES.throughput);
    raw.throughput = r;
    const tps = r.tasks / r.seconds;
    const base = r.tasks / r.baselineSeconds;
    rows.push({
      measure: `throughput, ${r.tasks} tasks, cap 8`,
      svc: `${tps.toFixed(1)} tasks/s`,
      baseline: `${base.toFixed(1)} units/s (hand work, 8 at a time)`,
      ratio: ratio(base, tps),
      target: `cap held (max ${r.maxRunning} running)`,
      ok: r.maxRunning <= 8 && r.failed === 0,
    });
    rows.push({
      measure: 'admission, slot free → next task running, p50 / p99',
      svc: `${fmtMs(median(r.admitMs))} / ${fmtMs(p99(r.admitMs))}`,
      baseline: '',
      ratio: '',
      target: 'p99 ≤ 50 ms',
      ok: p99(r.admitMs) <= 50,
    });
    rows.push({
      measure: 'admission, slot free → next step spawned, p50 / p99',
      svc: `${fmtMs(median(r.spawnMs))} / ${fmtMs(p99(r.spawnMs))}`,
      baseline: `${fmtMs(median(r.baselineSpawnMs))} / ${fmtMs(p99(r.baselineSpawnMs))} (unit end → next sh)`,
      ratio: ratio(p99(r.spawnMs), p99(r.baselineSpawnMs)),
      target: '',
      ok: null,
    });
  }
  if (wants('admission')) {
    log(`admission: ${SIZES.admission} tasks of 0.2–0.5 s under max_parallel_tasks 8…`);
    const r = await steadyAdmission(SIZES.admission);
    raw.admission = r;
    rows.push({
      measure: `admission at a steady pace (${r.tasks} tasks), slot free → next step spawned, p50 / p99`,
      svc: `${fmtMs(median(r.spawnMs))} / ${fmtMs(p99(r.spawnMs))}`,
      baseline: `${fmtMs(median(r.baselineSpawnMs))} / ${fmtMs(p99(r.baselineSpawnMs))} (unit end → next sh)`,
      ratio: ratio(p99(r.spawnMs), p99(r.baselineSpawnMs)),
      target: 'p99 ≤ 50 ms',
      ok: p99(r.spawnMs) <= 50 && r.maxRunning <= 8 && r.failed === 0,
    });
  }
  if (wants('api')) {
    log(
      `API at scale: seeding ${SIZES.tasks} tasks, ${SIZES.tasks * SIZES.runs} step runs, ${SIZES.events} events…`,
    );
    const r = await apiAtScale({
      tasks: SIZES.tasks,
      runsPerTask: SIZES.runs,
      events: SIZES.events,
      samples: SIZES.samples,
    });
    raw.api = r;
    const health = `${fmtMs(median(r.healthMs))} / ${fmtMs(p99(r.healthMs))} (GET /v1/health)`;
    rows.push({
      measure: `GET /v1/tasks at ${r.tasks} tasks (${r.listRows} rows), p50 / p99`,
      svc: `${fmtMs(median(r.listMs))} / ${fmtMs(p99(r.listMs))}`,
      baseline: health,
      ratio: ratio(p99(r.listMs), p99(r.healthMs)),
      target: 'p99 ≤ 50 ms',
      ok: p99(r.listMs) <= 50,
    });
    rows.push({
      measure: `GET /v1/tasks/{id} with ${r.runs} step runs stored, p50 / p99`,
      svc: `${fmtMs(median(r.detailMs))} / ${fmtMs(p99(r.detailMs))}`,
      baseline: health,
      ratio: ratio(p99(r.detailMs), p99(r.healthMs)),
      target: '',
      ok: null,
    });
    rows.push({
      measure: `GET /v1/events replay of ${r.events} events`,
      svc: `${fmtMs(r.replayMs)} (${Math.round(r.events / (r.replayMs / 1000))} events/s)`,
      baseline: `${fmtMs(r.replayBaselineMs)} (SQLite read + frame, in process)`,
      ratio: ratio(r.replayMs, r.replayBaselineMs),
      target: '',
      ok: null,
    });
  }
  if (wants('footprint')) {
    log('footprint: cold starts, idle RSS, RSS with running tasks…');
    const r = await footprint({ starts: SIZES.starts, busy: SIZES.busy });
    raw.footprint = r;
    rows.push({
      measure: 'cold start to /v1/health, existing data dir, median',
      svc: fmtMs(median(r.coldStartMs)),
      baseline: `${fmtMs(median(r.baselineStartMs))} (bare node http server)`,
      ratio: ratio(median(r.coldStartMs), median(r.baselineStartMs)),
      target: '≤ 400 ms',
      ok: median(r.coldStartMs) <= 400,
    });
    rows.push({
      measure: 'cold start, CPU used by the first answer, median',
      svc: fmtMs(median(r.coldStartCpuMs)),
      baseline: `${fmtMs(median(r.baselineStartCpuMs))} (bare node http server)`,
      ratio: ratio(median(r.coldStartCpuMs), median(r.baselineStartCpuMs)),
      target: '≤ 400 ms on a free core',
      ok: median(r.coldStartCpuMs) <= 400,
    });
    rows.push({
      measure: 'first start (creates config, token, database)',
      svc: fmtMs(r.firstStartMs),
      baseline: '',
      ratio: '',
      target: '',
      ok: null,
    });
    rows.push({
      measure: 'idle RSS',
      svc: fmtMb(r.idleRss),
      baseline: `${fmtMb(r.baselineRss)} (bare node http server)`,
      ratio: ratio(r.idleRss, r.baselineRss),
      target: '≤ 90 MB',
      ok: r.idleRss <= 90 * 1024 * 1024,
    });
    rows.push({
      measure: `RSS with ${r.running} tasks running`,
      svc: fmtMb(r.busyRss),
      baseline: `${fmtMb(r.idleRss)} (idle)`,
      ratio: `+${fmtMb(r.busyRss - r.idleRss)}`,
      target: '',
      ok: null,
    });
  }
  const load1 = loadavg()[0] ?? 0;
  const header = `svc bench — node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${load0.toFixed(1)} → ${load1.toFixed(1)}${quick ? ', QUICK sizes' : ''}`;
  process.stdout.write(`${header}\n\n${markdown(rows)}\n`);
  if (jsonArg) writeFileSync(jsonArg, JSON.stringify({ header, rows, raw }, null, 2));
}

function markdown(table: Row[]): string {
  const head = ['Measure', 'svc', 'Baseline (same run)', 'Ratio', 'Target', ''];
  const body = table.map((r) => [
    r.measure,
    r.svc,
    r.baseline,
    r.ratio,
    r.target,
    r.ok === null ? '' : r.ok ? 'ok' : 'MISS',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    cleanup();
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
