/**
 * The API at scale: 10,000 tasks, 100,000 step runs and 100,000 events seeded through the store,
 * then the built daemon in its own process answering over loopback HTTP: `GET /v1/tasks` (the default page), every
 * page of the whole list for the default, `archived=all`, `project_id=` and `state=` (issue 22
 * point 3), a task detail, and a replay of every event on `GET /v1/events`. Baselines in the same run:
 * `GET /v1/health` (the HTTP floor), the same list pages sent by a bare Node server in a process of
 * its own and walked by the same client (the transport's floor: what a walk costs when the pages
 * cost nothing to build; decision 244), and reading + serializing the same events straight from
 * SQLite (the storage floor). Requests are timed by one client in a worker thread of its own
 * (lib/http-client.ts), so the bench's own heap never pauses a measured request.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { cleanup, makeRepo, prepare, QUIET_CONFIG, spawnDaemon, tempRoot } from './lib/env.js';
import { HttpClient, type Received } from './lib/http-client.js';
import { seedHistory } from './lib/seed.js';
import { now } from './lib/stats.js';

const BARE_PAGES = fileURLToPath(new URL('./lib/bare-pages.js', import.meta.url));

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
  /** The same first page from a bare Node server, timed in turns with svc's (like with like). */
  listBareMs: number[];
  listRows: number;
  /** Whole lists walked in pages of 1,000 (issue 22 point 3). */
  walks: ListWalk[];
  detailMs: number[];
  healthMs: number[];
  replayMs: number;
  replayBaselineMs: number;
}

/** Starts the bare server (bare-pages.ts) on `pages` in a process of its own; its URL and a stop. */
async function bareServer(pages: Received[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const file = join(tempRoot('svc-bare-'), 'pages.json');
  writeFileSync(file, JSON.stringify(pages));
  const child = spawn(process.execPath, [BARE_PAGES, file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', (code) => reject(new Error(`the bare server exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Walks every page of `query` `n` times from svc, then the same pages `n` times from a bare
 * server; the times of whole walks (bodies read, not parsed), both through one client.
 */
async function walk(
  client: HttpClient,
  url: string,
  token: string,
  query: string,
  n: number,
): Promise<ListWalk> {
  const { ms, pages } = await client.walk(url, token, query, n);
  // Parsed after the clock stops: the client's JSON.parse is not the daemon's time.
  const rows = pages.reduce((sum, p) => sum + (JSON.parse(p.body) as unknown[]).length, 0);
  const bare = await bareServer(pages);
  try {
    const b = await client.walk(bare.url, 'bare', query, n);
    return { query: query || '(default)', rows, ms, bareMs: b.ms };
  } finally {
    await bare.stop();
  }
}

/**
 * `GET /v1/tasks` (the first page) `samples` times from svc and as many times from a bare server
 * sending the same bytes, in turns of a tenth each, so a host that slows down mid-run slows both.
 */
async function firstPages(client: HttpClient, url: string, token: string, samples: number) {
  const first = await client.timed(url, token, ['/v1/tasks']);
  const bare = await bareServer([first.last]);
  try {
    const turn = Math.max(1, Math.round(samples / 10));
    const ms: number[] = [];
    const bareMs: number[] = [];
    while (ms.length < samples) {
      const n = Math.min(turn, samples - ms.length);
      ms.push(...(await client.timed(url, token, Array<string>(n).fill('/v1/tasks'))).ms);
      bareMs.push(...(await client.timed(bare.url, 'bare', Array<string>(n).fill('/v1/tasks'))).ms);
    }
    return { ms, bareMs, rows: (JSON.parse(first.last.body) as unknown[]).length };
  } finally {
    await bare.stop();
  }
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
  /**
   * Where to leave a CPU profile of the daemon over the first pages and the walks (`--profile`).
   * The daemon then runs the plain tsc output, so the profile names each module; its figures are
   * not the bundle's.
   */
  profile?: string;
}): Promise<ApiResult> {
  const root = tempRoot();
  const repo = makeRepo(root);
  const paths = prepare(root, QUIET_CONFIG);
  const seeded = seedHistory(paths, repo, opts);
  const daemon = await spawnDaemon(paths, opts.profile ? { probe: true, unbundled: true } : {});
  const { api } = daemon;
  const client = new HttpClient();
  try {
    const { url, token } = api;
    const times = (path: (i: number) => string) =>
      Array.from({ length: opts.samples }, (_, i) => path(i));
    const health = await client.timed(
      url,
      token,
      times(() => '/v1/health'),
    );
    if (opts.profile) await daemon.probe({ cmd: 'profile-start', intervalUs: 250 });
    const list = await firstPages(client, url, token, opts.samples);
    const listRows = list.rows;
    const walks: ListWalk[] = [];
    for (const q of ['', 'archived=all', 'project_id=1', 'state=done'])
      walks.push(await walk(client, url, token, q, opts.walks));
    if (opts.profile) await daemon.probe({ cmd: 'profile-stop', file: opts.profile });
    const detail = await client.timed(
      url,
      token,
      times((i) => `/v1/tasks/${1 + ((i * 7919) % opts.tasks)}`),
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
      listBareMs: list.bareMs,
      listRows,
      walks,
      detailMs: detail.ms,
      healthMs: health.ms,
      replayMs,
      replayBaselineMs,
    };
  } finally {
    await client.close();
    await daemon.stop();
    cleanup();
  }
}
