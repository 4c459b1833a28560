// Issue 22 point 4 (decision 232): a command step's output, however heavy and however encoded,
// lands in its transcript line for line — every text what the per-line path made of the bytes
// printed, invalid UTF-8 included — and the transcript served back is the file on disk, byte for
// byte. A transcript that falls behind holds its producer back instead of queueing without bound.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SystemClock } from '../../../kernel/clock/index.js';
import { defaultConfig } from '../../../kernel/config/index.js';
import { spawnLogged } from '../../../kernel/engine/index.js';
import {
  LineSplitter,
  QUEUE_HOLD,
  TRANSCRIPT_HIGH_WATER,
  TranscriptWriter,
} from '../../../kernel/proc/index.js';
import { buildTestApp } from '../../support/app.js';
import { swapFs } from '../../support/faults.js';
import { addProject, commandWorkflow, createTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

/** What the per-line path made of a stream: its lines' texts (decision 232's reference). */
function textsOf(bytes: Buffer): string[] {
  const split = new LineSplitter();
  const out: string[] = [];
  split.push(bytes, (l) => out.push(l));
  split.flush((l) => out.push(l));
  return out;
}

/** ~3 MB: long lines, base64 lines, quotes, backslashes, tabs, \r\n, invalid UTF-8, no final newline. */
function heavyOutput(): Buffer {
  const parts: Buffer[] = [];
  for (let round = 0; round < 6; round++) {
    parts.push(Buffer.from(`${'lorem ipsum "dolor" sit\tamet \\ '.repeat(125)}\n`.repeat(60)));
    const random = Buffer.from(
      Array.from({ length: 256 * 1024 }, (_, i) => (i * 2654435761 + round) % 256),
    );
    parts.push(Buffer.from(random.toString('base64').replace(/(.{60})/g, '$1\n')));
    parts.push(Buffer.from('\nwindows line\r\n\xff\xfe broken \xc3( \xe2\x82 end\n', 'latin1'));
  }
  parts.push(Buffer.from('last line without newline \xe9', 'latin1'));
  return Buffer.concat(parts);
}

describe('output-heavy command steps', () => {
  it('keep every line of heavy, badly encoded output, and serve the transcript as stored', async () => {
    const t = await buildTestApp({ config: 'max_parallel_tasks: 4\n' });
    const data = join(tempDir(), 'out.bin');
    const bytes = heavyOutput();
    writeFileSync(data, bytes);
    const { project } = await addProject(t, {
      loud: commandWorkflow('loud', `cat ${data}; cat ${data} >&2`),
    });
    const tasks = await Promise.all(
      [1, 2, 3].map((i) =>
        createTask(t, { project_id: project.id, title: `loud ${i}`, workflow: 'loud' }),
      ),
    );
    const want = textsOf(bytes);
    for (const task of tasks) {
      const done = await waitState(t, task.id, 'done', 60_000);
      const run = done.steps?.[0];
      const file = readFileSync(join(t.paths.transcriptsDir, String(task.id), '0-1.jsonl'));
      // Served back page by page, the pages are the file.
      const pages: Buffer[] = [];
      for (let offset = 0; ; ) {
        const res = await t.api(
          'GET',
          `/v1/tasks/${task.id}/steps/${run?.id}/transcript?offset=${offset}&limit=1000000`,
        );
        expect(res.statusCode).toBe(200);
        if (res.rawPayload.length === 0) break;
        pages.push(res.rawPayload);
        offset = Number(res.headers['x-next-offset']);
      }
      expect(Buffer.concat(pages).equals(file)).toBe(true);
      const lines = file
        .toString('utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; stream?: string; text?: string });
      for (const stream of ['stdout', 'stderr'])
        expect(
          lines.filter((l) => l.type === 'svc.output' && l.stream === stream).map((l) => l.text),
        ).toEqual(want);
      expect(lines.at(-1)?.type).toBe('svc.step_finished');
    }
  }, 120_000);

  it('stops reading a producer while its transcript is behind, and loses nothing', async () => {
    const dir = tempDir();
    const path = join(dir, 't', '0-1.jsonl');
    // A slow disk: every transcript write completes 20 ms late.
    swapFs('writev', (original) => (...args: unknown[]) => {
      const cb = args.at(-1) as (...r: unknown[]) => void;
      (original as (...a: unknown[]) => void)(...args.slice(0, -1), (...r: unknown[]) =>
        setTimeout(() => cb(...r), 20),
      );
    });
    const transcript = new TranscriptWriter(path, 0);
    let most = 0;
    let lines = 0;
    const r = await spawnLogged(
      {
        transcript,
        ts: () => 'T',
        clock: new SystemClock(),
        config: defaultConfig(),
        cwd: dir,
        vars: {},
        container: null,
        containerName: () => 'x',
        mounts: [],
        signal: new AbortController().signal,
        cancelled: () => false,
        onOutput: (o) => {
          lines += o.text.split('\n').length;
          most = Math.max(most, transcript.pending);
        },
      },
      {
        file: '/bin/sh',
        args: ['-c', `yes ${'a'.repeat(99)} | head -n 100000`],
        timeoutMs: 60_000,
        phase: 'run',
      },
    );
    await transcript.close();
    expect(r.exit_code).toBe(0);
    // 10 MB printed in lines of 100 bytes: every line kept, live and on disk.
    expect(lines).toBe(100_000);
    const written = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(written.filter((l) => l.includes('"svc.output"'))).toHaveLength(100_000);
    // Never much more than the high-water mark waited in memory: past it, only what was already
    // read is still encoded — the chunks queued for their turn (decision 239: up to QUEUE_HOLD and
    // the read that tipped it, plus one read on its way), each line grown by its JSON framing. On
    // a starved host that queue is full when the disk falls behind.
    const framed =
      (Buffer.byteLength(written.find((l) => l.includes('"svc.output"')) ?? '') + 1) / 100;
    expect(framed).toBeGreaterThan(1);
    expect(most).toBeLessThan(TRANSCRIPT_HIGH_WATER + (QUEUE_HOLD + 2 * 64 * 1024) * framed);
  }, 120_000);

  it('names a transcript on a step run only once the file is there, however slow the disk', async () => {
    const t = await buildTestApp();
    const { project } = await addProject(t, { one: commandWorkflow('one', 'echo hello') });
    // A slow disk: opening a transcript takes 300 ms.
    swapFs('open', (original) => (...args: unknown[]) => {
      const cb = args.at(-1) as (...r: unknown[]) => void;
      const slow = String(args[0]).startsWith(t.paths.transcriptsDir);
      (original as (...a: unknown[]) => void)(...args.slice(0, -1), (...r: unknown[]) =>
        slow ? setTimeout(() => cb(...r), 300) : cb(...r),
      );
    });
    const task = await createTask(t, { project_id: project.id, title: 'x', workflow: 'one' });
    let seen = 0;
    for (let i = 0; i < 400 && seen < 20; i++) {
      const [run] = await t.json<Array<{ id: number; has_transcript: boolean }>>(
        'GET',
        `/v1/tasks/${task.id}/steps`,
      );
      if (run?.has_transcript) {
        seen++;
        const res = await t.api('GET', `/v1/tasks/${task.id}/steps/${run.id}/transcript`);
        expect(res.statusCode).toBe(200);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(seen).toBeGreaterThan(0);
    await waitState(t, task.id, 'done');
  });
});
