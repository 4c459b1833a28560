/**
 * `npm run bench`: svc against the physical limit (issues 11 and 22). Each figure sits beside a
 * baseline measured in the same run on the same machine, so a loaded machine slows both alike and
 * the ratio stays meaningful. Exits 1 when a target is missed. Not part of `npm test`; results and
 * history live in docs/performance.md.
 *
 *   npm run bench                      every section at full size
 *   npm run bench -- --quick           small sizes (a smoke run, figures not comparable)
 *   npm run bench -- --only api,footprint
 *   npm run bench -- --json out.json   also write the raw samples
 *   npm run bench -- --only cpu --profile daemon.cpuprofile   keep the daemon's profile
 *   npm run bench -- --only output --profile out.cpuprofile   profile the daemon under output
 *   npm run bench -- --only api --profile list.cpuprofile      profile the daemon over the list walks
 *   npm run bench -- --only output --output-size 16x5          16 steps of 5 rounds (~12 MB)
 *   SVC_BENCH_BIN=/other/build/bin/svc.js npm run bench …      time another build's daemon
 *   npm run bench -- --help            the options; an unknown option or section is refused
 *
 * Sections: overhead, cpu, throughput, admission, api, output, footprint, template.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { steadyAdmission } from './admission.js';
import { apiAtScale } from './api.js';
import { cpuPerTask } from './cpu.js';
import { footprint } from './footprint.js';
import { type BenchArgs, parseBenchArgs, type Section, USAGE } from './lib/args.js';
import { PARTS } from './lib/budget.js';
import { cleanup } from './lib/env.js';
import { fmtMb, fmtMs, median, p99 } from './lib/stats.js';
import { outputHeavy } from './output.js';
import { type OverheadRun, overhead, ratiosOf } from './overhead.js';
import { templateSpeed } from './template.js';
import { throughput } from './throughput.js';

interface Row {
  measure: string;
  svc: string;
  baseline: string;
  ratio: string;
  target: string;
  ok: boolean | null;
}

const read = parseBenchArgs(process.argv.slice(2));
if ('error' in read) {
  process.stderr.write(`bench: ${read.error}\n${USAGE}\n`);
  process.exit(2);
}
const parsed: BenchArgs = read;
if (parsed.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const { quick, only } = parsed;
const jsonArg = parsed.json;
const profileArg = parsed.profile;
const wants = (s: Section) => !only || only.has(s);

const SIZES = quick
  ? {
      overhead: 10,
      overheadRuns: 2,
      cpu: 60,
      throughput: 60,
      admission: 40,
      tasks: 1000,
      runs: 10,
      events: 10_000,
      samples: 40,
      walks: 3,
      outputSteps: 4,
      outputRounds: 2,
      starts: 2,
      busy: 10,
      renders: 10_000,
      renderPasses: 3,
    }
  : {
      overhead: 100,
      overheadRuns: 5,
      cpu: 500,
      throughput: 500,
      admission: 200,
      tasks: 10_000,
      runs: 10,
      events: 100_000,
      samples: 200,
      walks: 10,
      outputSteps: 16,
      outputRounds: 25,
      starts: 5,
      busy: 50,
      renders: 10_000,
      renderPasses: 10,
    };

const rows: Row[] = [];
const raw: Record<string, unknown> = { sizes: SIZES };
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : '—');
const log = (s: string) => process.stderr.write(`${s}\n`);

let budgetTable = '';

async function main(): Promise<number> {
  const load0 = loadavg()[0] ?? 0;
  if (wants('overhead')) {
    log(
      `step overhead: ${SIZES.overheadRuns} runs of ${SIZES.overhead} one-step tasks, then as many beside a CPU hog…`,
    );
    const r = await overhead(SIZES.overhead, SIZES.overheadRuns);
    raw.overhead = r;
    const failed = [...r.quiet, ...r.contended].reduce((n, run) => n + run.failed, 0);
    const pair = (runs: OverheadRun[], label: string) => {
      const ratios = runs.map(ratiosOf);
      const byDone = [...ratios].sort((a, b) => a.done - b.done);
      const mid = byDone[Math.floor((byDone.length - 1) / 2)];
      const worstDone = Math.max(...ratios.map((x) => x.done));
      const byArchived = [...ratios].sort((a, b) => a.archived - b.archived);
      const midArchived = byArchived[Math.floor((byArchived.length - 1) / 2)];
      const worstArchived = Math.max(...ratios.map((x) => x.archived));
      rows.push({
        measure: `step overhead ${label}, create→done (${runs.length} runs of ${SIZES.overhead}): median run / worst run`,
        svc: mid ? fmtMs(mid.svcDone) : '—',
        baseline: mid ? `${fmtMs(mid.unit)} (worktree add + sh + status)` : '—',
        ratio: `${median(ratios.map((x) => x.done)).toFixed(2)}× / ${worstDone.toFixed(2)}×`,
        target: 'every run ≤ 1.3×',
        ok: worstDone <= 1.3 && failed === 0,
      });
      rows.push({
        measure: `step overhead ${label}, create→archived: median run / worst run`,
        svc: midArchived ? fmtMs(midArchived.svcArchived) : '—',
        baseline: midArchived ? `${fmtMs(midArchived.unitRemoved)} (… + worktree remove)` : '—',
        ratio: `${median(ratios.map((x) => x.archived)).toFixed(2)}× / ${worstArchived.toFixed(2)}×`,
        target: '',
        ok: null,
      });
    };
    pair(r.quiet, 'quiet');
    pair(r.contended, `beside ${r.hogs} busy loop${r.hogs === 1 ? '' : 's'}`);
  }
  if (wants('cpu')) {
    log(`svc's own CPU: ${SIZES.cpu} one-step tasks at cap 4, then again profiled…`);
    const r = await cpuPerTask(SIZES.cpu, profileArg);
    raw.cpu = r;
    rows.push({
      measure: `svc's own CPU per one-step task (${r.tasks} tasks, cap 4), daemon and spawner, user + system`,
      svc: `${fmtMs(r.cpuPerTaskMs)} (${fmtMs(r.userPerTaskMs)} + ${fmtMs(r.systemPerTaskMs)})`,
      baseline: `${fmtMs(r.baselineCpuPerUnitMs)} (${fmtMs(r.baselineUserPerUnitMs)} + ${fmtMs(r.baselineSystemPerUnitMs)}) (bare node: worktree add + sh + status)`,
      ratio: ratio(r.cpuPerTaskMs, r.baselineCpuPerUnitMs),
      target: '≤ 4 ms',
      ok: r.cpuPerTaskMs <= 4 && r.failed === 0,
    });
    rows.push({
      measure: '… of which the spawner (forking the task’s programs)',
      svc: fmtMs(r.spawnerPerTaskMs),
      baseline: '',
      ratio: '',
      target: '',
      ok: null,
    });
    rows.push({
      measure:
        "svc's CPU per one-step task beyond the bare supervisor's (the difference of the two above)",
      svc: fmtMs(r.cpuPerTaskMs - r.baselineCpuPerUnitMs),
      baseline: '',
      ratio: '',
      target: '',
      ok: null,
    });
    budgetTable = [
      '| Part | ms per task |',
      '|---|---|',
      ...PARTS.map((p) => `| ${p} | ${r.budget[p].toFixed(2)} |`),
      `| main thread in all | ${Object.values(r.budget)
        .reduce((a, b) => a + b, 0)
        .toFixed(2)} |`,
      `| process CPU, profiled run | ${r.profiledCpuPerTaskMs.toFixed(2)} |`,
    ].join('\n');
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
    log(
      `admission: ${SIZES.admission} tasks under max_parallel_tasks 8, paced to this host's git…`,
    );
    const r = await steadyAdmission(SIZES.admission);
    raw.admission = r;
    rows.push({
      measure: `admission at a steady pace (${r.tasks} tasks of ${r.sleeps[0]}–${r.sleeps.at(-1)} s; git's worktree add ${fmtMs(r.addMs)}), slot free → next step spawned, p50 / p99`,
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
      walks: SIZES.walks,
      profile: profileArg,
    });
    raw.api = r;
    const health = `${fmtMs(median(r.healthMs))} / ${fmtMs(p99(r.healthMs))} (GET /v1/health)`;
    rows.push({
      measure: `GET /v1/tasks first page at ${r.tasks} tasks (${r.listRows} rows), p50 / p99`,
      svc: `${fmtMs(median(r.listMs))} / ${fmtMs(p99(r.listMs))}`,
      baseline: `${fmtMs(median(r.listBareMs))} / ${fmtMs(p99(r.listBareMs))} (the same page from a bare Node server, in turns)`,
      ratio: ratio(p99(r.listMs), p99(r.listBareMs)),
      target: 'p99 ≤ 5 ms',
      ok: p99(r.listMs) <= 5,
    });
    for (const w of r.walks) {
      rows.push({
        measure: `whole list ${w.query}, ${w.rows} rows in pages of 1,000: median / worst of ${w.ms.length}`,
        svc: `${fmtMs(median(w.ms))} / ${fmtMs(Math.max(...w.ms))}`,
        baseline: `${fmtMs(median(w.bareMs))} / ${fmtMs(Math.max(...w.bareMs))} (the same pages from a bare Node server)`,
        ratio: ratio(median(w.ms), median(w.bareMs)),
        target: 'median ≤ 150 ms',
        ok: median(w.ms) <= 150,
      });
    }
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
  if (wants('output')) {
    log(
      `output-heavy: ${SIZES.outputSteps} steps printing ~${(SIZES.outputRounds * 2.4).toFixed(0)} MB each, and the raw producers…`,
    );
    const r = await outputHeavy({
      steps: parsed.outputSize?.steps ?? SIZES.outputSteps,
      rounds: parsed.outputSize?.rounds ?? SIZES.outputRounds,
      profile: profileArg,
    });
    raw.output = r;
    const rawMean = (r.rawSeconds[0] + r.rawSeconds[1]) / 2;
    rows.push({
      measure: `${r.steps} command steps printing ${fmtMb(r.bytesPerStep)} each, wall`,
      svc: `${r.svcSeconds.toFixed(2)} s`,
      baseline: `${rawMean.toFixed(2)} s (the producers writing to files: ${r.rawSeconds.map((x) => x.toFixed(2)).join(' s, ')} s)`,
      ratio: ratio(r.svcSeconds, rawMean),
      target: 'ratio ≤ 1.5',
      ok: r.svcSeconds / rawMean <= 1.5 && r.failed === 0,
    });
    rows.push({
      measure: `API meanwhile (${r.apiMs.length} GET /v1/health and /v1/tasks), p50 / p99`,
      svc: `${fmtMs(median(r.apiMs))} / ${fmtMs(p99(r.apiMs))}`,
      baseline: '',
      ratio: '',
      target: 'p99 ≤ 100 ms',
      ok: p99(r.apiMs) <= 100,
    });
    rows.push({
      measure: 'event-loop delay meanwhile, p99 / max',
      svc: `${fmtMs(r.delayP99)} / ${fmtMs(r.delayMax)}`,
      baseline: '',
      ratio: '',
      target: 'p99 ≤ 20 ms',
      ok: r.delayP99 <= 20,
    });
    rows.push({
      measure:
        'garbage collections meanwhile: minor / major (longest major), main-thread pause in all',
      svc: `${r.gc.minor} / ${r.gc.major} (${fmtMs(r.gc.majorMaxMs)}), ${fmtMs(r.gc.totalMs)}`,
      baseline: '',
      ratio: '',
      target: '',
      ok: null,
    });
    rows.push({
      measure: 'daemon CPU meanwhile (user + system, all its threads and its spawner)',
      svc: `${r.daemonCpuSeconds.toFixed(2)} s`,
      baseline: '',
      ratio: '',
      target: '',
      ok: null,
    });
    rows.push({
      measure: 'RSS meanwhile, the daemon’s and its spawner’s private pages, max',
      svc: fmtMb(r.rssMaxBytes),
      baseline: '',
      ratio: '',
      target: '≤ 250 MB',
      ok: r.rssMaxBytes <= 250 * 1024 * 1024,
    });
    rows.push({
      measure:
        '… the two RSS summed (the pages both map, mostly the Node binary’s, counted twice), max',
      svc: fmtMb(r.rssSummedMaxBytes),
      baseline: '',
      ratio: '',
      target: '',
      ok: null,
    });
    rows.push({
      measure: `transcripts: served = on disk${r.contentChecked ? ', texts = printed' : ''} (${fmtMb(r.followedBytes)} followed)`,
      svc: r.problems.length === 0 ? 'identical' : r.problems.slice(0, 3).join('; '),
      baseline: '',
      ratio: '',
      target: 'every byte',
      ok: r.problems.length === 0,
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
      measure: `RSS with ${r.running} tasks running (its spawner’s private pages added)`,
      svc: fmtMb(r.busyRss),
      baseline: `${fmtMb(r.idleRss)} (idle)`,
      ratio: `+${fmtMb(r.busyRss - r.idleRss)}`,
      target: '',
      ok: null,
    });
  }
  if (wants('template')) {
    log(`template: a typical prompt rendered ${SIZES.renders} times once parsed…`);
    const r = templateSpeed({ renders: SIZES.renders, passes: SIZES.renderPasses });
    raw.template = r;
    const mid = median(r.passMs);
    const base = median(r.baselineMs);
    rows.push({
      measure: `template: a typical prompt rendered ${r.renders} times once parsed, median of ${r.passMs.length} passes`,
      svc: `${fmtMs(mid)} (${((mid * 1000) / r.renders).toFixed(1)} µs a render; parse ${fmtMs(r.parseMs)})`,
      baseline: `${fmtMs(base)} (the same text built by hand)`,
      ratio: ratio(mid, base),
      target: '≤ 2000 ms',
      ok: mid <= 2000 && r.problems.length === 0,
    });
    if (r.problems.length > 0) log(`template: ${r.problems.join('; ')}`);
  }
  const load1 = loadavg()[0] ?? 0;
  const header = `svc bench — node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${load0.toFixed(1)} → ${load1.toFixed(1)}${quick ? ', QUICK sizes' : ''}`;
  const budget = budgetTable
    ? `\nsvc's own time per one-step task by part (profiled):\n\n${budgetTable}\n`
    : '';
  process.stdout.write(`${header}\n\n${markdown(rows)}\n${budget}`);
  if (jsonArg) writeFileSync(jsonArg, JSON.stringify({ header, rows, raw }, null, 2));
  cleanup();
  return rows.some((r) => r.ok === false) ? 1 : 0;
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
  (code) => process.exit(code),
  (err: unknown) => {
    cleanup();
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
