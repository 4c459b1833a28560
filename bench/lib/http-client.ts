/**
 * The client the API section times requests with: a worker thread of its own (a fresh heap and
 * event loop, so the bench's seeded data and its garbage never pause it) speaking `node:http`
 * over one kept-alive connection. Measured against the same daemon, `fetch` from the bench's main
 * thread added ~2 ms to a first page's median and ~6 ms to its p99 (client time, not svc's);
 * every figure the section compares — svc, GET /v1/health and the bare server — goes through
 * this one client, so like is still compared with like.
 */
import { Agent, request } from 'node:http';
import { parentPort, Worker } from 'node:worker_threads';

/** A response as the client received it. */
export interface Received {
  status: number;
  body: string;
  type: string;
  cursor: string | null;
}

type Call =
  | { id: number; cmd: 'timed'; url: string; token: string; paths: string[]; warmup: number }
  | {
      id: number;
      cmd: 'walk';
      url: string;
      token: string;
      query: string;
      n: number;
      warmup: number;
    };

/** A call without its id (each member of the union without it). */
type Request = Call extends infer C ? (C extends Call ? Omit<C, 'id'> : never) : never;

interface Answer {
  id: number;
  ms: number[];
  last: Received[];
  error?: string;
}

/** GET over one kept-alive connection to `url`; the agent closes it when the call is over. */
function makeGet(url: string, token: string, agent: Agent) {
  const u = new URL(url);
  return (path: string) =>
    new Promise<Received>((resolve, reject) => {
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path,
          agent,
          headers: { authorization: `Bearer ${token}` },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              type: String(res.headers['content-type'] ?? ''),
              cursor: (res.headers['x-next-cursor'] as string | undefined) ?? null,
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
}

/** Every page of `query`, following the cursor; the bodies are read, not parsed. */
async function walkOnce(get: (p: string) => Promise<Received>, query: string) {
  const pages: Received[] = [];
  let cursor: string | null = null;
  const t0 = performance.now();
  do {
    const sep = query ? '&' : '';
    const page = await get(
      `/v1/tasks?${query}${sep}limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
    );
    if (page.status !== 200)
      throw new Error(`list ${query} → ${page.status} ${page.body.slice(0, 200)}`);
    pages.push(page);
    cursor = page.cursor;
  } while (cursor);
  return { ms: performance.now() - t0, pages };
}

async function serve(call: Call): Promise<Answer> {
  // One connection per call: a daemon or bare server that is stopped next holds none of ours.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    return await measure(call, makeGet(call.url, call.token, agent));
  } finally {
    agent.destroy();
  }
}

async function measure(call: Call, get: (path: string) => Promise<Received>): Promise<Answer> {
  const ms: number[] = [];
  let last: Received[] = [];
  if (call.cmd === 'timed') {
    for (let i = -call.warmup; i < call.paths.length; i++) {
      const path = call.paths[Math.max(0, i)] as string;
      const t0 = performance.now();
      const r = await get(path);
      const took = performance.now() - t0;
      if (r.status !== 200) throw new Error(`${path} → ${r.status} ${r.body.slice(0, 200)}`);
      if (i >= 0) ms.push(took);
      last = [r];
    }
  } else {
    for (let i = -call.warmup; i < call.n; i++) {
      const r = await walkOnce(get, call.query);
      if (i >= 0) ms.push(r.ms);
      last = r.pages;
    }
  }
  return { id: call.id, ms, last };
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (call: Call) => {
    serve(call).then(
      (a) => port.postMessage(a),
      (err: Error) => port.postMessage({ id: call.id, ms: [], last: [], error: err.message }),
    );
  });
}

/** The main thread's handle on the client worker. */
export class HttpClient {
  private readonly worker = new Worker(new URL(import.meta.url));
  private next = 0;

  private call(c: Request): Promise<Answer> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      const on = (a: Answer) => {
        if (a.id !== id) return;
        this.worker.off('message', on);
        if (a.error) reject(new Error(a.error));
        else resolve(a);
      };
      this.worker.on('message', on);
      this.worker.postMessage({ ...c, id });
    });
  }

  /** One request per path, in order, after `warmup` untimed ones; the times and the last answer. */
  async timed(url: string, token: string, paths: string[], warmup = 5) {
    const a = await this.call({ cmd: 'timed', url, token, paths, warmup });
    return { ms: a.ms, last: a.last[0] as Received };
  }

  /** `n` timed walks of every page of `query` (after two untimed); the pages of the last. */
  async walk(url: string, token: string, query: string, n: number) {
    const a = await this.call({ cmd: 'walk', url, token, query, n, warmup: 2 });
    return { ms: a.ms, pages: a.last };
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}
