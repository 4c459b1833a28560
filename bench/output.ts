/**
 * Output-heavy load (issue 22 point 4): 16 command steps at once, each printing about 60 MB —
 * 1 MB of 4,000-character lines, then 1 MB of random bytes as base64 in 60-character lines, and a
 * line of invalid UTF-8, 25 times — beside the same 16 producers writing straight to files in the
 * same run (before and after svc's run; the baseline is their mean).
 *
 * While svc runs them: a client follows each task's transcript (`GET …/transcript?offset=`, page
 * after page, as `svc task logs` reads one) and one follows the global event stream; a worker
 * thread asks `GET /v1/health` and `GET /v1/tasks` every 20 ms (its latencies are the API's); the
 * daemon's probe reports its event-loop delay, and its RSS is read every 100 ms. Afterwards every
 * transcript is checked: the bytes served are the bytes on disk (CRC-32 of each whole stream),
 * and its `svc.output` texts are the lines the producer printed, decoded as svc always has
 * (LineSplitter), in order.
 *
 * The "random" bytes are AES-CTR of zeros (openssl), so the bench knows every byte each producer
 * printed without keeping a copy; without openssl it uses /dev/urandom and checks only that the
 * served bytes are the stored ones.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { createReadStream, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import { LineSplitter } from '../kernel/proc/index.js';
import { makeRepo, prepare, QUIET_CONFIG, rssFiguresOf, spawnDaemon, tempRoot } from './lib/env.js';
import { SseFollower } from './lib/sse.js';
import { now } from './lib/stats.js';

export interface OutputResult {
  steps: number;
  rounds: number;
  bytesPerStep: number;
  svcSeconds: number;
  /** The raw producers before and after svc's run. */
  rawSeconds: [number, number];
  apiMs: number[];
  delayP99: number;
  delayMax: number;
  /** The daemon's collections over svc's run: minor and major counts, the longest major (ms). */
  gc: { minor: number; major: number; majorMaxMs: number; totalMs: number };
  /** The daemon's RSS and its spawner's private pages, max (decision 256). */
  rssMaxBytes: number;
  /** The two processes' RSS summed, max: the pages both map counted twice. */
  rssSummedMaxBytes: number;
  /** The daemon's user + system CPU over svc's run, seconds (all its threads). */
  daemonCpuSeconds: number;
  /** Transcript bytes the followers read. */
  followedBytes: number;
  /** What the checks found wrong; empty when every byte is where it should be. */
  problems: string[];
  /** Whether the texts were compared with what the producer printed (needs openssl). */
  contentChecked: boolean;
  failed: number;
}

const KEY = '000102030405060708090a0b0c0d0e0f';
const LINE = 'x'.repeat(4000);
const BAD = Buffer.from('bad \xff\xfe utf-8 \xc3\x28 here\n', 'latin1');

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function producerScript(rounds: number, openssl: boolean): string {
  const random = openssl
    ? `head -c 1048576 /dev/zero | openssl enc -aes-128-ctr -nosalt -K ${KEY} -iv "$(printf '%032x' $i)"`
    : 'head -c 1048576 /dev/urandom';
  return `line=$(head -c 4000 /dev/zero | tr '\\0' 'x')
i=0
while [ $i -lt ${rounds} ]; do
  yes "$line" | head -n 262
  ${random} | base64 -w 60
  printf 'bad \\377\\376 utf-8 \\303\\050 here\\n'
  i=$((i+1))
done
`;
}

/** What one producer prints, chunk by chunk (each round's three parts). */
function* producerOutput(rounds: number): Generator<Buffer> {
  const lines = Buffer.from(`${LINE}\n`.repeat(262));
  for (let i = 0; i < rounds; i++) {
    yield lines;
    const iv = Buffer.from(i.toString(16).padStart(32, '0'), 'hex');
    const random = createCipheriv('aes-128-ctr', Buffer.from(KEY, 'hex'), iv).update(
      Buffer.alloc(1 << 20),
    );
    yield Buffer.from(
      `${random
        .toString('base64')
        .replace(/(.{60})/g, '$1\n')
        .replace(/\n$/, '')}\n`,
    );
    yield BAD;
  }
}

/** The texts svc must have kept: the producer's output through the per-line decoder. */
function expectedTexts(rounds: number): string[] {
  const split = new LineSplitter();
  const out: string[] = [];
  for (const chunk of producerOutput(rounds)) split.push(chunk, (l) => out.push(l));
  split.flush((l) => out.push(l));
  return out;
}

function runProducers(script: string, dir: string, n: number): Promise<number> {
  const t0 = now();
  return Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn('/bin/sh', ['-c', `sh ${script} > ${join(dir, `raw-${i}.out`)}`], {
            stdio: 'ignore',
          });
          child.on('error', reject);
          child.on('exit', () => resolve());
        }),
    ),
  ).then(() => (now() - t0) / 1000);
}

interface Follow {
  taskId: number;
  runId: number | null;
  offset: number;
  crc: number;
}

/** Reads a task's transcript page after page until the task has settled and all is read. */
async function follow(
  url: string,
  token: string,
  f: Follow,
  settled: () => boolean,
): Promise<number> {
  const headers = { authorization: `Bearer ${token}` };
  let read = 0;
  while (f.runId === null) {
    const steps = (await (
      await fetch(`${url}/v1/tasks/${f.taskId}/steps`, { headers })
    ).json()) as Array<{
      id: number;
    }>;
    f.runId = steps[0]?.id ?? null;
    if (f.runId === null) await new Promise((r) => setTimeout(r, 50));
  }
  for (;;) {
    const done = settled();
    const res = await fetch(
      `${url}/v1/tasks/${f.taskId}/steps/${f.runId}/transcript?offset=${f.offset}`,
      { headers },
    );
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`transcript of task ${f.taskId} → ${res.status}`);
    // zlib's crc32 of no bytes from an empty ArrayBuffer starts over (a null buffer): skip it.
    if (body.length > 0) f.crc = crc32(body, f.crc);
    f.offset += body.length;
    read += body.length;
    const size = Number(res.headers.get('x-transcript-size'));
    if (done && f.offset >= size) return read;
    if (body.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
}

/** Compares a transcript on disk with what was served and with the texts expected. */
async function check(path: string, f: Follow, want: string[] | null): Promise<string[]> {
  const problems: string[] = [];
  let crc = 0;
  for await (const chunk of createReadStream(path)) crc = crc32(chunk as Buffer, crc);
  const size = statSync(path).size;
  if (crc !== f.crc || size !== f.offset)
    problems.push(
      `task ${f.taskId}: the bytes served (${f.offset}, crc ${f.crc}) differ from the bytes on disk (${size}, crc ${crc})`,
    );
  if (!want) return problems;
  let k = 0;
  for await (const line of createInterface({
    input: createReadStream(path),
    crlfDelay: Infinity,
  })) {
    if (!line.includes('"type":"svc.output"')) continue;
    const j = JSON.parse(line) as { stream: string; text: string };
    if (j.stream !== 'stdout' || j.text !== want[k]) {
      problems.push(
        `task ${f.taskId}: output line ${k + 1} differs from what the producer printed`,
      );
      return problems;
    }
    k++;
  }
  if (k !== want.length)
    problems.push(`task ${f.taskId}: ${k} output lines kept of ${want.length} printed`);
  return problems;
}

/**
 * `profile`: where to write a CPU profile of the daemon's main thread over svc's run (`npm run
 * bench -- --only output --profile x.cpuprofile`); the daemon then runs the plain tsc output so
 * the profile names each module, and its figures are not comparable with an unprofiled run.
 */
export async function outputHeavy(opts: {
  steps: number;
  rounds: number;
  profile?: string;
}): Promise<OutputResult> {
  const root = tempRoot();
  const openssl = hasOpenssl();
  const script = join(root, 'producer.sh');
  writeFileSync(script, producerScript(opts.rounds, openssl));
  const rawBefore = await runProducers(script, root, opts.steps);
  const bytesPerStep = statSync(join(root, 'raw-0.out')).size;

  const repo = makeRepo(root);
  const paths = prepare(root, `${QUIET_CONFIG}max_parallel_tasks: ${opts.steps}\n`, {
    loud: `name: loud\nsteps:\n  - id: print\n    type: command\n    run: sh ${script}\n`,
  });
  const daemon = await spawnDaemon(paths, { probe: true, unbundled: opts.profile !== undefined });
  const { url, token } = daemon.api;
  const events = new SseFollower(url, token);
  events.start();
  const result: Omit<OutputResult, 'rawSeconds'> = {
    steps: opts.steps,
    rounds: opts.rounds,
    bytesPerStep,
    svcSeconds: 0,
    apiMs: [],
    delayP99: 0,
    delayMax: 0,
    gc: { minor: 0, major: 0, majorMaxMs: 0, totalMs: 0 },
    rssMaxBytes: 0,
    rssSummedMaxBytes: 0,
    daemonCpuSeconds: 0,
    followedBytes: 0,
    problems: [],
    contentChecked: openssl,
    failed: 0,
  };
  const follows: Follow[] = [];
  try {
    const project = await daemon.api.call<{ id: number }>('POST', '/v1/projects', { path: repo });
    const prober = new Worker(new URL('./lib/api-prober.js', import.meta.url), {
      workerData: { url, token, intervalMs: 20 },
    });
    const probed = new Promise<number[]>((r) => prober.once('message', r));
    let rssMax = 0;
    let rssSummedMax = 0;
    const rss = setInterval(() => {
      const r = rssFiguresOf(daemon.pid);
      rssMax = Math.max(rssMax, r.svc);
      rssSummedMax = Math.max(rssSummedMax, r.summed);
    }, 100);
    if (opts.profile) await daemon.probe({ cmd: 'profile-start', intervalUs: 500 });
    const m0 = await daemon.probe({ cmd: 'mark' });
    const t0 = now();
    const ids = await Promise.all(
      Array.from(
        { length: opts.steps },
        async (_, i) =>
          (
            await daemon.api.call<{ id: number }>('POST', '/v1/tasks', {
              project_id: project.id,
              title: `loud ${i}`,
              workflow: 'loud',
            })
          ).id,
      ),
    );
    const ended = new Map<number, string>();
    const settledOf = () => {
      for (const e of events.events)
        if (e.kind === 'task.state_changed' && e.task_id !== null) {
          const to = String(e.payload.to);
          if (['done', 'blocked', 'aborted'].includes(to)) ended.set(e.task_id, to);
        }
    };
    const reads = ids.map((taskId) => {
      const f: Follow = { taskId, runId: null, offset: 0, crc: 0 };
      follows.push(f);
      return follow(url, token, f, () => {
        settledOf();
        return ended.has(taskId);
      });
    });
    let allDone = 0;
    const waitDone = (async () => {
      for (;;) {
        settledOf();
        if (ids.every((id) => ended.has(id))) {
          allDone = now();
          return;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await waitDone;
    result.svcSeconds = (allDone - t0) / 1000;
    const mark = await daemon.probe({ cmd: 'mark' });
    if (opts.profile) await daemon.probe({ cmd: 'profile-stop', file: opts.profile });
    prober.postMessage('stop');
    result.apiMs = await probed;
    await prober.terminate();
    clearInterval(rss);
    result.followedBytes = (await Promise.all(reads)).reduce((a, b) => a + b, 0);
    result.daemonCpuSeconds = (mark.user + mark.system - m0.user - m0.system) / 1e6;
    result.delayP99 = mark.delayP99;
    result.delayMax = mark.delayMax;
    result.gc = {
      minor: mark.gcMinor,
      major: mark.gcMajor,
      majorMaxMs: mark.gcMajorMaxMs,
      totalMs: mark.gcTotalMs,
    };
    result.rssMaxBytes = Math.max(rssMax, mark.rss);
    result.rssSummedMaxBytes = Math.max(rssSummedMax, mark.rssSummed);
    result.failed = ids.filter((id) => ended.get(id) !== 'done').length;
  } finally {
    await events.stop();
    await daemon.stop();
  }
  const want = openssl ? expectedTexts(opts.rounds) : null;
  for (const f of follows) {
    const path = join(paths.transcriptsDir, String(f.taskId), '0-1.jsonl');
    result.problems.push(...(await check(path, f, want)));
  }
  const rawAfter = await runProducers(script, root, opts.steps);
  return { ...result, rawSeconds: [rawBefore, rawAfter] };
}
