/**
 * `npm run soak`: the load test of issue 11 point 2 (decision 154). Not part of `npm test` at full
 * size; test/e2e/soak.test.ts runs `--small`.
 *
 * A real daemon (`svc daemon run`, its own process) gets 2,000 tasks in bursts on two projects
 * (one with a project cap of 2), while SSE clients follow `/v1/events` (one joins late and replays,
 * one drops its connection and resumes with Last-Event-ID), action storms fire cancel, pause and
 * resume at the same tasks concurrently, and the configuration is reloaded both through the API
 * (the global cap alternates 8 ↔ 6) and by rewriting config.yaml. Afterwards:
 *   - every task is in a legal, settled state, and its transitions chain from its created state;
 *   - no slot is leaked (`/v1/info` slots in use 0) and no step run is left open;
 *   - no admission ever exceeded the global cap in force or the project cap (replayed from the
 *     event log, which is the commit order);
 *   - event ids are gapless, and every SSE client saw every event, once, in order;
 *   - no request was answered 5xx.
 *
 *   npm run soak                    2,000 tasks, 4 clients
 *   npm run soak -- --small         100 tasks, 3 clients (what the e2e test runs)
 *   npm run soak -- --tasks 500     any size
 *   npm run soak -- --json out.json also write the summary
 */
import { writeFileSync } from 'node:fs';
import { TASK_STATES } from '../kernel/task-states.js';
import { cleanup, makeRepo, prepare, QUIET_CONFIG, spawnDaemon, tempRoot } from './lib/env.js';
import { type SseEvent, SseFollower } from './lib/sse.js';

export interface SoakOptions {
  tasks: number;
  burst: number;
  clients: number;
  /** Tasks per burst that get an action storm. */
  storm: number;
}

export interface SoakResult {
  ok: boolean;
  options: SoakOptions;
  seconds: number;
  tasks: number;
  by_state: Record<string, number>;
  events: number;
  max_running: number;
  max_running_project_b: number;
  cap_changes: number;
  file_reloads: number;
  storm_requests: number;
  refused_409: number;
  client_reconnects: number;
  failures: string[];
}

const GLOBAL_CAPS = [8, 6];
const PROJECT_B_CAP = 2;
const SLOT_STATES = new Set(['running', 'awaiting_input']);
const SETTLED = new Set(['done', 'aborted']);

const WORKFLOWS = {
  quick: 'name: quick\nsteps:\n  - id: run\n    type: command\n    run: "true"\n',
  slow: 'name: slow\nsteps:\n  - id: first\n    type: command\n    run: "sleep 0.3"\n  - id: second\n    type: command\n    run: "true"\n',
};

function configText(cap: number, timeout: string): string {
  return `${QUIET_CONFIG}max_parallel_tasks: ${cap}\ndefaults:\n  command_timeout: ${timeout}\n`;
}

/** Runs `jobs` with at most `width` in flight. */
async function pool<T>(jobs: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await (jobs[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, worker));
  return out;
}

export async function soak(options: SoakOptions, log: (s: string) => void): Promise<SoakResult> {
  const failures: string[] = [];
  const fail = (s: string) => {
    if (failures.length < 50) failures.push(s);
  };
  const root = tempRoot('svc-soak-');
  const paths = prepare(root, configText(GLOBAL_CAPS[0] as number, '15m'), WORKFLOWS);
  const daemon = await spawnDaemon(paths);
  const api = daemon.api;
  let status5xx = 0;
  let refused = 0;
  let stormRequests = 0;
  const raw = async (method: string, path: string, body?: unknown): Promise<number> => {
    const res = await fetch(`${api.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${api.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 500) {
      status5xx++;
      fail(`${method} ${path} → ${res.status} ${text.slice(0, 200)}`);
    }
    if (res.status === 409) refused++;
    return res.status;
  };
  const t0 = performance.now();
  try {
    const a = await api.call<{ id: number }>('POST', '/v1/projects', {
      path: makeRepo(root, 'a'),
    });
    const b = await api.call<{ id: number }>('POST', '/v1/projects', {
      path: makeRepo(root, 'b'),
      max_parallel_tasks: PROJECT_B_CAP,
    });

    const clients = Array.from(
      { length: options.clients },
      () => new SseFollower(api.url, api.token),
    );
    // All but the last follow from the start; the last joins halfway and replays.
    for (const c of clients.slice(0, -1)) c.start();

    // Config reloads, strictly one after another so the cap in force is known at every event:
    // an API edit of the cap, then a file rewrite of another key (watched, hot-reloaded).
    const caps: number[] = [];
    let reloading = true;
    let fileReloads = 0;
    const reloader = (async () => {
      let i = 0;
      while (reloading) {
        const cap = GLOBAL_CAPS[++i % GLOBAL_CAPS.length] as number;
        const status = await raw('PATCH', '/v1/config', { max_parallel_tasks: cap });
        if (status === 200) caps.push(cap);
        else fail(`PATCH /v1/config → ${status}`);
        const timeout = i % 2 === 0 ? '15m' : '14m';
        writeFileSync(paths.configFile, configText(cap, timeout), { mode: 0o600 });
        for (let w = 0; w < 200 && reloading; w++) {
          const c = await api.call<{ defaults: { command_timeout: string } }>('GET', '/v1/config');
          if (c.defaults.command_timeout === timeout) {
            fileReloads++;
            break;
          }
          await new Promise((r) => setTimeout(r, 25));
        }
        await new Promise((r) => setTimeout(r, 300));
      }
    })();

    const ids: number[] = [];
    const bursts = Math.ceil(options.tasks / options.burst);
    for (let burst = 0; burst < bursts; burst++) {
      const size = Math.min(options.burst, options.tasks - burst * options.burst);
      const made = await pool(
        Array.from({ length: size }, (_, i) => async () => {
          const n = burst * options.burst + i;
          return api.call<{ id: number }>('POST', '/v1/tasks', {
            project_id: n % 3 === 0 ? b.id : a.id,
            title: `soak ${n}`,
            workflow: n % 4 === 0 ? 'slow' : 'quick',
            priority: n % 5,
          });
        }),
        16,
      );
      ids.push(...made.map((t) => t.id));
      // Storms: the same task gets pause, resume and cancel at once, from several requests.
      const targets = made.slice(0, options.storm);
      const storm = targets.flatMap((t, k) => {
        const actions =
          k % 3 === 0 ? ['pause', 'resume', 'pause', 'resume'] : ['pause', 'cancel', 'resume'];
        return actions.map((act) => () => {
          stormRequests++;
          return raw('POST', `/v1/tasks/${t.id}/${act}`);
        });
      });
      await Promise.all(storm.map((f) => f()));
      if (burst === Math.floor(bursts / 2)) clients.at(-1)?.start();
      if (burst % 3 === 1) await clients[0]?.blip();
      log(`burst ${burst + 1}/${bursts}: ${ids.length} tasks created`);
    }

    // Drain: resume whatever the storms left paused until every task is settled.
    type Row = { id: number; state: string; project_id: number };
    const listAll = async (): Promise<Row[]> => {
      const rows: Row[] = [];
      for (let cursor = ''; ; ) {
        const res = await fetch(
          `${api.url}/v1/tasks?limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
          { headers: { authorization: `Bearer ${api.token}` } },
        );
        rows.push(...((await res.json()) as Row[]));
        cursor = res.headers.get('x-next-cursor') ?? '';
        if (!cursor) return rows;
      }
    };
    let rows: Row[] = [];
    const deadline = Date.now() + Math.max(120_000, options.tasks * 500);
    for (;;) {
      rows = await listAll();
      const open = rows.filter((r) => !SETTLED.has(r.state));
      for (const r of open.filter((r) => r.state === 'paused'))
        await raw('POST', `/v1/tasks/${r.id}/resume`);
      if (open.length === 0) break;
      if (Date.now() > deadline) {
        fail(`not settled: ${open.map((r) => `${r.id}:${r.state}`).slice(0, 20)}`);
        break;
      }
      log(`draining: ${open.length} tasks not settled`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    reloading = false;
    await reloader;

    // The final word on the log: a fresh replay from the first event, ending at a marker.
    const marker = await api.call<{ id: number }>('POST', '/v1/tasks', {
      project_id: a.id,
      title: 'soak marker',
      workflow: 'quick',
      paused: true,
    });
    const markerShown = (c: SseFollower) =>
      c.events.some((e) => e.kind === 'task.created' && e.task_id === marker.id);
    const replay = new SseFollower(api.url, api.token);
    replay.start();
    for (const c of [...clients, replay]) {
      const until = Date.now() + 60_000;
      while (!markerShown(c) && !c.failure && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
    }
    await Promise.all([...clients, replay].map((c) => c.stop()));
    const log0 = replay.events;

    // Gapless ids.
    log0.forEach((e, i) => {
      if (e.id !== i + 1) fail(`event ids: position ${i} holds id ${e.id}`);
    });
    // Every client saw every event, once, in order (its own ids equal the replay's).
    const want = log0.map((e) => e.id).join(',');
    clients.forEach((c, i) => {
      if (c.failure) fail(`client ${i}: ${c.failure}`);
      const got = c.events.map((e) => e.id);
      if (got.join(',') !== want)
        fail(`client ${i} saw ${got.length} events, the log holds ${log0.length}`);
    });

    // States: legal and settled, chained from creation through every transition.
    const byId = new Map(rows.map((r) => [r.id, r]));
    if (byId.size !== ids.length) fail(`${ids.length} tasks created, ${byId.size} listed`);
    for (const id of ids) if (!byId.has(id)) fail(`task ${id} is missing`);
    const chain = new Map<number, string>();
    for (const e of log0) {
      if (e.task_id === null) continue;
      if (e.kind === 'task.created') chain.set(e.task_id, e.payload.state as string);
      if (e.kind === 'task.state_changed') {
        const before = chain.get(e.task_id);
        if (before !== e.payload.from)
          fail(`task ${e.task_id}: event ${e.id} moves from ${e.payload.from}, it was ${before}`);
        if (!(TASK_STATES as readonly unknown[]).includes(e.payload.to))
          fail(`task ${e.task_id}: illegal state ${e.payload.to}`);
        chain.set(e.task_id, e.payload.to as string);
      }
    }
    for (const r of rows) {
      if (!SETTLED.has(r.state)) fail(`task ${r.id} ended ${r.state}`);
      if (chain.get(r.id) !== r.state)
        fail(`task ${r.id} is ${r.state}, its events end at ${chain.get(r.id)}`);
    }

    // Caps: replay admissions in commit order against the cap in force.
    const inSlot = new Map<number, boolean>();
    const projectOf = new Map(rows.map((r) => [r.id, r.project_id]));
    let running = 0;
    let runningB = 0;
    let maxRunning = 0;
    let maxRunningB = 0;
    let capIndex = -1;
    let capChanges = 0;
    const capNow = () => (capIndex < 0 ? (GLOBAL_CAPS[0] as number) : (caps[capIndex] as number));
    for (const e of log0 as SseEvent[]) {
      if (e.kind === 'config.changed' && e.payload.source === 'api') {
        capIndex++;
        capChanges++;
      }
      if (e.kind !== 'task.state_changed' || e.task_id === null) continue;
      const to = e.payload.to as string;
      const isB = projectOf.get(e.task_id) === b.id;
      if (e.payload.from === 'queued' && to === 'running') {
        if (running >= capNow())
          fail(
            `event ${e.id}: admitted task ${e.task_id} with ${running} running, cap ${capNow()}`,
          );
        if (isB && runningB >= PROJECT_B_CAP)
          fail(`event ${e.id}: admitted task ${e.task_id} with ${runningB} running in project b`);
      }
      const was = inSlot.get(e.task_id) ?? false;
      const now = SLOT_STATES.has(to);
      if (was !== now) {
        running += now ? 1 : -1;
        if (isB) runningB += now ? 1 : -1;
        inSlot.set(e.task_id, now);
      }
      maxRunning = Math.max(maxRunning, running);
      maxRunningB = Math.max(maxRunningB, runningB);
    }
    if (capChanges !== caps.length)
      fail(`${caps.length} cap edits answered 200, ${capChanges} config.changed (api) events`);

    // Slots and step runs.
    const info = await api.call<{ slots: { tasks: { in_use: number } } }>('GET', '/v1/info');
    if (info.slots.tasks.in_use !== 0) fail(`${info.slots.tasks.in_use} slots still in use`);
    await pool(
      rows.map((r) => async () => {
        const steps = await api.call<Array<{ state: string }>>('GET', `/v1/tasks/${r.id}/steps`);
        if (steps.some((s) => s.state === 'running')) fail(`task ${r.id} has an open step run`);
      }),
      8,
    );

    const byState: Record<string, number> = {};
    for (const r of rows) byState[r.state] = (byState[r.state] ?? 0) + 1;
    return {
      ok: failures.length === 0 && status5xx === 0,
      options,
      seconds: Math.round((performance.now() - t0) / 100) / 10,
      tasks: rows.length,
      by_state: byState,
      events: log0.length,
      max_running: maxRunning,
      max_running_project_b: maxRunningB,
      cap_changes: capChanges,
      file_reloads: fileReloads,
      storm_requests: stormRequests,
      refused_409: refused,
      client_reconnects: clients.reduce((n, c) => n + c.reconnects, 0),
      failures,
    };
  } finally {
    await daemon.stop();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const small = args.includes('--small');
  const tasksArg = args.includes('--tasks') ? Number(args[args.indexOf('--tasks') + 1]) : NaN;
  const jsonArg = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
  const options: SoakOptions = small
    ? { tasks: 100, burst: 34, clients: 3, storm: 6 }
    : { tasks: 2000, burst: 100, clients: 4, storm: 10 };
  if (Number.isFinite(tasksArg) && tasksArg > 0) options.tasks = tasksArg;
  const log = (s: string) => process.stderr.write(`${s}\n`);
  let result: SoakResult;
  try {
    result = await soak(options, log);
  } finally {
    cleanup();
  }
  const { failures, ...summary } = result;
  for (const [k, v] of Object.entries(summary)) log(`${k.padEnd(24)} ${JSON.stringify(v)}`);
  for (const f of failures) log(`FAIL ${f}`);
  log(result.ok ? 'soak: every check held' : 'soak: FAILED');
  if (jsonArg) writeFileSync(jsonArg, `${JSON.stringify(result, null, 2)}\n`);
  process.exitCode = result.ok ? 0 : 1;
}

void main();
