/**
 * The API at scale: 10,000 tasks, 100,000 step runs and 100,000 events seeded through the store,
 * then the built daemon in its own process answering over loopback HTTP: `GET /v1/tasks` (the default page), a task
 * detail, and a replay of every event on `GET /v1/events`. Baselines in the same run:
 * `GET /v1/health` (the HTTP floor) and reading + serializing the same events straight from
 * SQLite (the storage floor).
 */
import Database from 'better-sqlite3';
import { cleanup, makeRepo, prepare, QUIET_CONFIG, spawnDaemon, tempRoot } from './lib/env.js';
import { seedHistory } from './lib/seed.js';
import { now } from './lib/stats.js';

export interface ApiResult {
  tasks: number;
  runs: number;
  events: number;
  listMs: number[];
  listRows: number;
  detailMs: number[];
  healthMs: number[];
  replayMs: number;
  replayBaselineMs: number;
}

async function timed(url: string, token: string, n: number, path: (i: number) => string) {
  const out: number[] = [];
  let body = '';
  for (let i = -5; i < n; i++) {
    const t0 = now();
    const res = await fetch(`${url}${path(i)}`, { headers: { authorization: `Bearer ${token}` } });
    body = await res.text();
    if (res.status !== 200) throw new Error(`${path(i)} → ${res.status} ${body.slice(0, 200)}`);
    if (i >= 0) out.push(now() - t0);
  }
  return { ms: out, last: body };
}

/** Reads an SSE replay until the frame with `lastId` arrives; returns the frames counted. */
async function replay(url: string, token: string, lastId: number): Promise<number> {
  const ac = new AbortController();
  const res = await fetch(`${url}/v1/events`, {
    headers: { authorization: `Bearer ${token}`, 'last-event-id': '0' },
    signal: ac.signal,
  });
  if (!res.body) throw new Error('no body');
  const decoder = new TextDecoder();
  let tail = '';
  let frames = 0;
  const want = `id: ${lastId}\n`;
  for await (const chunk of res.body) {
    const text = tail + decoder.decode(chunk as Uint8Array, { stream: true });
    let i = text.indexOf('\nid: ');
    while (i >= 0) {
      frames++;
      i = text.indexOf('\nid: ', i + 1);
    }
    if (text.includes(want)) break;
    tail = text.slice(-64);
  }
  ac.abort();
  return frames;
}

export async function apiAtScale(opts: {
  tasks: number;
  runsPerTask: number;
  events: number;
  samples: number;
}): Promise<ApiResult> {
  const root = tempRoot();
  const repo = makeRepo(root);
  const paths = prepare(root, QUIET_CONFIG);
  const seeded = seedHistory(paths, repo, opts);
  const daemon = await spawnDaemon(paths);
  const { api } = daemon;
  try {
    const { url, token } = api;
    const health = await timed(url, token, opts.samples, () => '/v1/health');
    const list = await timed(url, token, opts.samples, () => '/v1/tasks');
    const listRows = (JSON.parse(list.last) as unknown[]).length;
    const detail = await timed(
      url,
      token,
      opts.samples,
      (i) => `/v1/tasks/${1 + ((Math.abs(i) * 7919) % opts.tasks)}`,
    );
    const lastId = seeded.maxEventId;
    const t0 = now();
    await replay(url, token, lastId);
    const replayMs = now() - t0;
    const t1 = now();
    const db = new Database(paths.dbFile, { readonly: true });
    let bytes = 0;
    for (const row of db.prepare('SELECT * FROM events ORDER BY id').iterate()) {
      const r = row as { payload: string; id: number; kind: string };
      bytes +=
        `id: ${r.id}\nevent: ${r.kind}\ndata: ${JSON.stringify({ ...r, payload: JSON.parse(r.payload) })}\n\n`
          .length;
    }
    db.close();
    const replayBaselineMs = bytes > 0 ? now() - t1 : Number.NaN;
    return {
      tasks: seeded.tasks,
      runs: seeded.runs,
      events: seeded.events,
      listMs: list.ms,
      listRows,
      detailMs: detail.ms,
      healthMs: health.ms,
      replayMs,
      replayBaselineMs,
    };
  } finally {
    await daemon.stop();
    cleanup();
  }
}
