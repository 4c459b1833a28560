/**
 * The API at scale: 10,000 tasks, 100,000 step runs and 100,000 events seeded through the store,
 * then the built daemon in its own process answering over loopback HTTP: `GET /v1/tasks` (the default page), every
 * page of the whole list for the default, `archived=all`, `project_id=` and `state=` (issue 22
 * point 3), a task detail, and a replay of every event on `GET /v1/events`. Baselines in the same run:
 * `GET /v1/health` (the HTTP floor), the same list pages sent by a bare Node server and walked by
 * the same client (the transport's floor: what a walk costs when the pages cost nothing to build;
 * decision 244), and reading + serializing the same events straight from SQLite (the storage floor).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { cleanup, makeRepo, prepare, QUIET_CONFIG, spawnDaemon, tempRoot } from './lib/env.js';
import { seedHistory } from './lib/seed.js';
import { now } from './lib/stats.js';

/** One whole list, every page of `limit` rows walked with the cursor. */
export interface ListWalk {
  query: string;
  rows: number;
  ms: number[];
  /** The same pages, bodies and headers, from a bare Node server walked the same way. */
  bareMs: number[];
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

/** A page as the client received it: what a bare server sends back for the baseline. */
interface Page {
  body: string;
  type: string;
  cursor: string | null;
}

/** Every page of `query` once, from `url`: the pages and the time of the whole walk. */
async function walkOnce(url: string, token: string, query: string) {
  const t0 = now();
  let cursor: string | null = null;
  const pages: Page[] = [];
  do {
    const sep = query ? '&' : '';
    const res = await fetch(
      `${url}/v1/tasks?${query}${sep}limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const body = await res.text();
    if (res.status !== 200) throw new Error(`list ${query} → ${res.status} ${body.slice(0, 200)}`);
    cursor = res.headers.get('x-next-cursor');
    pages.push({ body, type: res.headers.get('content-type') ?? '', cursor });
  } while (cursor);
  return { ms: now() - t0, pages };
}

/**
 * A bare Node server answering a walk with `pages` (the same bytes, content type and cursors,
 * the page chosen by its cursor), the walk timed by the same client code.
 */
async function bareWalks(pages: Page[], query: string, n: number): Promise<number[]> {
  const bodies = pages.map((p) => Buffer.from(p.body, 'utf8'));
  const byCursor = new Map<string, number>(pages.map((p, i) => [p.cursor ?? '', i + 1]));
  const server = createServer((req, res) => {
    const cursor = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor');
    const i = cursor === null ? 0 : (byCursor.get(cursor) ?? 0);
    const page = pages[i] as Page;
    res.setHeader('content-type', page.type);
    res.setHeader('content-length', (bodies[i] as Buffer).length);
    if (page.cursor) res.setHeader('x-next-cursor', page.cursor);
    res.end(bodies[i]);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ms: number[] = [];
  try {
    for (let i = -2; i < n; i++) {
      const r = await walkOnce(url, 'bare', query);
      if (i >= 0) ms.push(r.ms);
    }
  } finally {
    await new Promise((r) => server.close(r));
  }
  return ms;
}

/** Walks every page of `query` `n` times; the times of whole walks (bodies read, not parsed). */
async function walk(url: string, token: string, query: string, n: number): Promise<ListWalk> {
  const ms: number[] = [];
  let pages: Page[] = [];
  for (let i = -2; i < n; i++) {
    const r = await walkOnce(url, token, query);
    if (i >= 0) ms.push(r.ms);
    pages = r.pages;
  }
  // Parsed after the clock stops: the client's JSON.parse is not the daemon's time.
  const rows = pages.reduce((sum, p) => sum + (JSON.parse(p.body) as unknown[]).length, 0);
  return { query: query || '(default)', rows, ms, bareMs: await bareWalks(pages, query, n) };
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
