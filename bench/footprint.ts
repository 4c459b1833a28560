/**
 * Footprint of the built daemon in its own process: cold start (spawn → first 200 from
 * /v1/health) on an existing data directory, with the V8 code cache an earlier start wrote
 * (decision 158; the first start of a build writes it two seconds after listening, so the first
 * start here is kept up until it has), and on a first start, idle RSS, and RSS with 50 tasks
 * running at once. Start-up is single-threaded and CPU-bound, so the CPU it used by the first
 * answer is also reported: on a machine with a free core that is the wall time to expect, and it
 * barely moves when other processes crowd the machine, unlike the wall time. Baselines in the same run: a bare `node` HTTP server (spawn → first answer,
 * and its RSS) — the floor any Node daemon starts from.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  cleanup,
  commandWorkflow,
  cpuMsOf,
  makeRepo,
  prepare,
  QUIET_CONFIG,
  rssOf,
  spawnDaemon,
  tempRoot,
  waitHealthy,
} from './lib/env.js';
import { median, now } from './lib/stats.js';

export interface FootprintResult {
  firstStartMs: number;
  coldStartMs: number[];
  coldStartCpuMs: number[];
  baselineStartMs: number[];
  baselineStartCpuMs: number[];
  idleRss: number;
  baselineRss: number;
  busyRss: number;
  running: number;
}

const BARE_SERVER = `require('node:http').createServer((q, s) => s.end('{}')).listen(0, '127.0.0.1', function () {
  process.stdout.write(String(this.address().port) + '\\n');
});`;

async function bareNode(): Promise<{ startMs: number; cpuMs: number; rss: number }> {
  const t0 = now();
  const child = spawn(process.execPath, ['-e', BARE_SERVER], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let port = '';
  child.stdout.on('data', (c: Buffer) => {
    port += c.toString();
  });
  await waitHealthy(() => (port.endsWith('\n') ? `http://127.0.0.1:${port.trim()}` : null));
  const startMs = now() - t0;
  const cpuMs = cpuMsOf(child.pid as number);
  await new Promise((r) => setTimeout(r, 500));
  const rss = rssOf(child.pid as number);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill();
  await exited;
  return { startMs, cpuMs, rss };
}

/** Waits until the daemon `pid` says its code cache was written or was already there (10 s at most). */
async function codeCacheSettled(logFile: string, pid: number): Promise<void> {
  const deadline = now() + 10_000;
  while (now() < deadline) {
    let lines: string[] = [];
    try {
      lines = readFileSync(logFile, 'utf8').split('\n');
    } catch {}
    for (const line of lines) {
      if (!line.includes(`"pid":${pid}`)) continue;
      if (line.includes('"code cache written"') || line.includes('"code_cache":"accepted"')) return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function settleRss(rss: () => number, ms = 1500): Promise<number> {
  await new Promise((r) => setTimeout(r, ms));
  return rss();
}

export async function footprint(opts: { starts: number; busy: number }): Promise<FootprintResult> {
  const root = tempRoot();
  const repo = makeRepo(root);
  const paths = prepare(root, `${QUIET_CONFIG}max_parallel_tasks: ${opts.busy}\n`, {
    sleepy: commandWorkflow('sleepy', 'sleep 120'),
  });
  const out: FootprintResult = {
    firstStartMs: 0,
    coldStartMs: [],
    coldStartCpuMs: [],
    baselineStartMs: [],
    baselineStartCpuMs: [],
    idleRss: 0,
    baselineRss: 0,
    busyRss: 0,
    running: 0,
  };
  try {
    // First start: creates the data directory, the token and the database, and (the first start of
    // this build with these flags) the code cache every later start reads. Until it is written,
    // a start compiles the whole bundle: which the cold starts measured depended on whatever had
    // run before the section.
    const first = await spawnDaemon(paths);
    out.firstStartMs = first.startMs;
    await codeCacheSettled(paths.logFile, first.pid);
    await first.stop();
    const bareRss: number[] = [];
    for (let i = 0; i < opts.starts; i++) {
      const d = await spawnDaemon(paths);
      out.coldStartMs.push(d.startMs);
      out.coldStartCpuMs.push(d.startCpuMs);
      await d.stop();
      const bare = await bareNode();
      out.baselineStartMs.push(bare.startMs);
      out.baselineStartCpuMs.push(bare.cpuMs);
      bareRss.push(bare.rss);
    }
    out.baselineRss = median(bareRss);

    const d = await spawnDaemon(paths);
    try {
      out.idleRss = await settleRss(d.rssBytes);
      const project = await d.api.call<{ id: number }>('POST', '/v1/projects', { path: repo });
      for (let i = 0; i < opts.busy; i++) {
        await d.api.call('POST', '/v1/tasks', {
          project_id: project.id,
          title: `busy ${i}`,
          workflow: 'sleepy',
        });
      }
      const deadline = Date.now() + 120_000;
      for (;;) {
        const rows = await d.api.call<Array<{ state: string; steps?: unknown }>>(
          'GET',
          '/v1/tasks?state=running&limit=1000',
        );
        out.running = rows.length;
        if (rows.length >= opts.busy || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      out.busyRss = await settleRss(d.rssBytes);
    } finally {
      await d.stop();
    }
  } finally {
    cleanup();
  }
  return out;
}
