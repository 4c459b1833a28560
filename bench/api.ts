/**
 * The API at scale: 10,000 tasks, 100,000 step runs and 100,000 events seeded through the store,
 * then the built daemon in its own process answering over loopback HTTP: `GET /v1/tasks` (the default page), every
 * page of the whole list for the default, `archived=all`, `project_id=` and `state=` (issue 22
 * point 3), a task detail, and a replay of every event on `GET /v1/events`. Baselines in the same run:
 * `GET /v1/health` (the HTTP floor) and reading + serializing the same events straight from
 * SQLite (the storage floor).
 */
import Database from 'better-sqlite3';
import { cleanup, makeRepo, prepare, QUIET_CONFIG, spawnDaemon, tempRoot } from './lib/env.js';
import { seedHistory } from './lib/seed.js';
import { now } from './lib/stats.js';

/** One whole list, every page of `limit` rows walked with the cursor. */
export interface ListWalk {
  query: string;
  rows: number;
  ms: number[];
}

export interface ApiResult {
  tasks: number;
  runs: number;
  events: number;
  listMs: number[];
  listRows: number;
  /** Whole lists walked in pages of 1,000 (issue 22 point 3). */
  walks: ListWalk[];
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

/** Walks every page of `query` `n` times; the times of whole walks (bodies read, not parsed). */
async function walk(url: string, token: string, query: string, n: number): Promise<ListWalk> {
  const ms: number[] = [];
  let rows = 0;
  for (let i = -2; i < n; i++) {
    const t0 = now();
    let cursor: string | null = null;
    const bodies: string[] = [];
    do {
      const sep = query ? '&' : '';
      const res = await fetch(
        `${url}/v1/tasks?${query}${sep}limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      const body = await res.text();
      if (res.status !== 200)
        throw new Error(`list ${query} → ${res.status} ${body.slice(0, 200)}`);
      bodies.push(body);
      cursor = res.headers.get('x-next-cursor');
    } while (cursor);
    if (i >= 0) ms.push(now() - t0);
    // Parsed after the clock stops: the client's JSON.parse is not the daemon's time.
    rows = bodies.reduce((sum, b) => sum + (JSON.parse(b) as unknown[]).length, 0);
  }
  return { query: query || '(default)', rows, ms };
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
  /** Whole-list walks per filter. */
  walks: number;
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
    const walks: ListWalk[] = [];
    for (const q of ['', 'archived=all', 'project_id=1', 'state=done'])
      walks.push(await walk(url, token, q, opts.walks));
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
      walks,
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
