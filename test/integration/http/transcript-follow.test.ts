// Issue 22 point 4 (decision 243): following a transcript keeps the file of a running step open
// between polls instead of opening it for each page, and streams large pages from the file. The
// bytes served stay the file's bytes, every page ends at a line end, no descriptor leaks, and a
// reader that stops reading holds the daemon to a stream's buffer, not a whole page. A follower
// just behind a running step's writer is served what the writer just wrote, from memory
// (decision 252): the same pages, without reading the file back.
import {
  appendFileSync,
  readdirSync,
  readFileSync,
  renameSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  openTranscriptPage,
  readTranscript,
  type TranscriptPage,
} from '../../../kernel/http/transcript.js';
import { TranscriptFiles } from '../../../kernel/http/transcript-files.js';
import { recentOf, TranscriptWriter } from '../../../kernel/proc/index.js';
import { buildTestApp } from '../../support/app.js';
import { addProject, commandWorkflow, createTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

/** Lets the app's processes and timers run between polls (inject alone never yields to I/O). */
const pause = () => new Promise((r) => setTimeout(r, 5));

const openFds = () => readdirSync('/proc/self/fd').length;

async function bytesOf(page: TranscriptPage): Promise<Buffer> {
  if (Buffer.isBuffer(page.body)) return page.body;
  const parts: Buffer[] = [];
  for await (const chunk of page.body) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

/** A line of `n` bytes with its newline, numbered so a misplaced byte range shows. */
const line = (i: number, n: number) => `${String(i).padStart(8, '0')}${'x'.repeat(n - 9)}\n`;

/** A transcript writer on a fresh file, open, and the follower's kept files, closed after the test. */
async function openWriter() {
  const path = join(tempDir(), 'run', '0-1.jsonl');
  const w = new TranscriptWriter(path, 0);
  await w.opened();
  const files = new TranscriptFiles();
  onTestFinished(() => files.close());
  return { path, w, files };
}

describe('following a transcript', () => {
  it('keeps one descriptor across 1,000 polls of a growing file, and gets every byte', async () => {
    const path = join(tempDir(), '0-1.jsonl');
    writeFileSync(path, '');
    const before = openFds();
    const files = new TranscriptFiles();
    const got: Buffer[] = [];
    let offset = 0;
    let most = 0;
    for (let i = 0; i < 1000; i++) {
      // Growth in pieces that cut lines: a page only ever ends at a line end.
      appendFileSync(path, i % 3 === 2 ? 'partial' : `${i % 3 === 0 ? '' : 'end'}${line(i, 40)}`);
      const page = await openTranscriptPage(files, path, { offset }, true);
      if (!page) throw new Error('no page');
      const body = await bytesOf(page);
      expect(body.length).toBe(page.length);
      expect(page.nextOffset).toBe(offset + body.length);
      if (body.length > 0) expect(body.at(-1)).toBe(0x0a);
      got.push(body);
      offset = page.nextOffset;
      most = Math.max(most, openFds() - before);
    }
    expect(most).toBe(1);
    expect(files.size).toBe(1);
    const file = readFileSync(path);
    expect(Buffer.concat(got).equals(file.subarray(0, file.lastIndexOf(0x0a) + 1))).toBe(true);
    files.close();
    await new Promise((r) => setTimeout(r, 20));
    expect(openFds()).toBe(before);
  });

  it('serves large pages as a prefix-consistent byte range while the file grows', async () => {
    const path = join(tempDir(), '0-1.jsonl');
    writeFileSync(path, '');
    const files = new TranscriptFiles();
    onTestFinished(() => files.close());
    let writing = true;
    // Batches of ~75 KB: a follower that keeps up still gets pages past the buffered size.
    const writer = (async () => {
      for (let i = 0; writing && i < 4000; i += 50) {
        let batch = '';
        for (let j = i; j < i + 50; j++) batch += line(j, 1000 + (j % 977));
        await appendFile(path, batch);
      }
    })();
    const got: Buffer[] = [];
    let offset = 0;
    let streamed = 0;
    while (offset < 3_000_000) {
      const page = await openTranscriptPage(files, path, { offset, limit: 300_000 }, true);
      if (!page) throw new Error('no page');
      if (!Buffer.isBuffer(page.body)) streamed++;
      const body = await bytesOf(page);
      expect(body.length).toBe(page.length);
      expect(page.length).toBeLessThanOrEqual(300_000);
      got.push(body);
      offset = page.nextOffset;
    }
    writing = false;
    await writer;
    const file = readFileSync(path);
    const served = Buffer.concat(got);
    expect(served.equals(file.subarray(0, served.length))).toBe(true);
    expect(served.at(-1)).toBe(0x0a);
    expect(streamed).toBeGreaterThan(0);
  });

  it('answers the page the contract describes, for offsets, tails and limits, streamed or buffered', async () => {
    const path = join(tempDir(), '0-1.jsonl');
    writeFileSync(path, Array.from({ length: 600 }, (_, i) => line(i, 100 + (i % 400))).join(''));
    appendFileSync(path, 'a partial line');
    const content = readFileSync(path);
    // The contract (kernel/http/transcript.ts): start at `offset`, or `tail` bytes before the end
    // snapped back to the start of its line; at most `limit` (≤ 4 MiB) bytes, cut after the last
    // complete line; the next offset is where the page ends.
    const expected = (q: { offset?: number; tail?: number; limit?: number }) => {
      const size = content.length;
      let start = q.offset ?? 0;
      if (q.tail !== undefined) {
        start = Math.max(0, size - q.tail);
        if (start > 0) start = content.lastIndexOf(0x0a, start - 1) + 1;
      }
      if (start >= size) return { body: Buffer.alloc(0), nextOffset: start, size };
      const range = content.subarray(start, start + Math.min(q.limit ?? 4 << 20, 4 << 20));
      const end = range.lastIndexOf(0x0a) + 1;
      return { body: range.subarray(0, end), nextOffset: start + end, size };
    };
    const files = new TranscriptFiles();
    onTestFinished(() => files.close());
    const queries = [
      {},
      { offset: 0, limit: 10 },
      { offset: 5, limit: 70_000 },
      { offset: 1234 },
      { tail: 20 },
      { tail: 100_000 },
      { tail: 10_000_000 },
      { offset: 10_000_000 },
      { limit: 0 },
    ];
    // Bodies compared as Latin-1 text: byte for byte the same, and a deep equality over a few
    // hundred KiB of Buffer elements took seconds.
    const text = <T extends { body: Buffer }>(p: T) => ({ ...p, body: p.body.toString('latin1') });
    for (const q of queries) {
      const want = expected(q);
      const page = await openTranscriptPage(files, path, q, false);
      const streamed = page && text({ ...page, body: await bytesOf(page) });
      expect(streamed, JSON.stringify(q)).toEqual(text({ ...want, length: want.body.length }));
      const buffered = await readTranscript(path, q);
      expect(buffered && text(buffered), JSON.stringify(q)).toEqual(text(want));
    }
    expect(files.size).toBe(0);
    expect(await openTranscriptPage(files, join(tempDir(), 'missing'), {}, true)).toBeNull();
    expect(await readTranscript(join(tempDir(), 'missing'), {})).toBeNull();
  });

  it('ends a streamed page with an error when the file is cut short under it, and lets the file go', async () => {
    const path = join(tempDir(), '0-1.jsonl');
    writeFileSync(path, line(0, 1000).repeat(1024));
    const files = new TranscriptFiles();
    onTestFinished(() => files.close());
    const page = await openTranscriptPage(files, path, {}, true);
    if (!page || Buffer.isBuffer(page.body)) throw new Error('expected a streamed page');
    // Pruned (or rewritten by hand) while a follower reads it: never a short page served as whole.
    truncateSync(path, 0);
    await expect(bytesOf(page)).rejects.toThrow(/transcript shrank/);
    const fds = openFds();
    files.close();
    await pause();
    expect(openFds()).toBe(fds - 1);
  });

  it('reads no further ahead than the stream buffer for a reader that stops', async () => {
    const path = join(tempDir(), '0-1.jsonl');
    writeFileSync(path, line(0, 1000).repeat(4096));
    const files = new TranscriptFiles();
    onTestFinished(() => files.close());
    const page = await openTranscriptPage(files, path, {}, true);
    if (!page || Buffer.isBuffer(page.body)) throw new Error('expected a streamed page');
    const body = page.body;
    let pulled = 0;
    body.on('data', (c: Buffer) => {
      pulled += c.length;
    });
    expect(page.length).toBe(4096 * 1000);
    // A client that accepts one chunk and never another.
    const stuck = new Writable({ highWaterMark: 1, write: () => undefined });
    body.pipe(stuck);
    await new Promise((r) => body.once('pause', r));
    for (let i = 0; i < 20 && body.readableLength < body.readableHighWaterMark; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(pulled + body.readableLength).toBeLessThanOrEqual(3 * body.readableHighWaterMark);
    expect(pulled + body.readableLength).toBeLessThan(page.length);
    // The reader goes away: the file is released, and closing the cache closes it.
    body.destroy();
    await new Promise((r) => body.once('close', r));
    const before = openFds();
    files.close();
    await new Promise((r) => setTimeout(r, 20));
    expect(openFds()).toBe(before - 1);
  });

  it('stays bounded, closes idle files, and follows a path to its new file', async () => {
    let now = 0;
    const files = new TranscriptFiles({ max: 2, idleMs: 1000, now: () => now });
    onTestFinished(() => files.close());
    const dir = tempDir();
    const paths = [0, 1, 2].map((i) => join(dir, `${i}.jsonl`));
    for (const p of paths) writeFileSync(p, line(1, 20));
    const before = openFds();
    for (const p of paths) (await files.acquire(p, true))?.release();
    expect(files.size).toBe(2);
    await new Promise((r) => setTimeout(r, 20));
    expect(openFds()).toBe(before + 2);
    // A lease still held survives the sweep; an idle one is closed.
    const held = await files.acquire(paths[2] as string, true);
    now += 1500;
    files.sweep();
    expect(files.size).toBe(1);
    held?.release();
    // The file replaced under its path: the next read sees the new one.
    writeFileSync(`${paths[2]}.new`, line(2, 30));
    renameSync(`${paths[2]}.new`, paths[2] as string);
    const page = await openTranscriptPage(files, paths[2] as string, {}, true);
    expect(page && (await bytesOf(page)).toString()).toBe(line(2, 30));
    now += 1500;
    files.sweep();
    expect(files.size).toBe(0);
    await new Promise((r) => setTimeout(r, 20));
    expect(openFds()).toBe(before);
  });

  it('serves a running step’s transcript to a follower byte for byte, with its length', async () => {
    const t = await buildTestApp({});
    const script = 'i=0; while [ $i -lt 300 ]; do printf "%0900d\\n" $i; i=$((i+1)); done';
    const { project } = await addProject(t, { loud: commandWorkflow('loud', script) });
    const task = await createTask(t, { project_id: project.id, title: 'loud', workflow: 'loud' });
    let runId: number | undefined;
    while (runId === undefined) {
      const steps = (await t.api('GET', `/v1/tasks/${task.id}/steps`)).json() as { id: number }[];
      runId = steps[0]?.id;
      await pause();
    }
    const got: Buffer[] = [];
    let offset = 0;
    let settled = false;
    for (;;) {
      const done = settled;
      const res = await t.api(
        'GET',
        `/v1/tasks/${task.id}/steps/${runId}/transcript?offset=${offset}`,
      );
      expect(res.statusCode).toBe(200);
      expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
      got.push(res.rawPayload);
      offset = Number(res.headers['x-next-offset']);
      if (done && offset >= Number(res.headers['x-transcript-size'])) break;
      if (res.rawPayload.length === 0) await pause();
      if (!settled) {
        const state = (await t.api('GET', `/v1/tasks/${task.id}`)).json().state as string;
        if (state === 'failed') throw new Error('the step failed');
        settled = state === 'done';
      }
    }
    await waitState(t, task.id, 'done');
    const file = readFileSync(join(t.paths.transcriptsDir, String(task.id), '0-1.jsonl'));
    expect(Buffer.concat(got).equals(file)).toBe(true);
  }, 60_000);

  it('serves a follower just behind a running writer from what it wrote: the file’s pages, none read back', async () => {
    const { path, w, files } = await openWriter();
    let offset = 0;
    const got: Buffer[] = [];
    for (let i = 0; i < 200; i++) {
      w.writeLines(
        Buffer.from(
          Array.from({ length: 1 + (i % 7) }, (_, k) => line(i * 10 + k, 30 + 97 * k)).join(''),
        ),
      );
      if (i % 3 === 0) await w.flushed();
      // Limits that cut inside a write, and pages that take several writes.
      const limit = [100, 700, 5000, 1 << 20][i % 4] as number;
      const page = await openTranscriptPage(files, path, { offset, limit }, true);
      if (!page) throw new Error('no page');
      const body = await bytesOf(page);
      const file = readFileSync(path);
      const range = file.subarray(offset, offset + limit);
      const whole = range.subarray(0, range.lastIndexOf(0x0a) + 1);
      // Everything written is on disk: the page is the file's. Writes still in flight: the
      // page may stop before them, but it is the file's bytes and ends at a line end.
      if (i % 3 === 0) expect(body.toString('latin1')).toBe(whole.toString('latin1'));
      else expect(whole.subarray(0, body.length).equals(body)).toBe(true);
      if (body.length > 0) expect(body.at(-1)).toBe(0x0a);
      got.push(body);
      offset = page.nextOffset;
    }
    await w.flushed();
    // The file moved away (and no handle of it is kept): a page still comes, from memory, with
    // the bytes that were written.
    renameSync(path, `${path}.moved`);
    const rest = await openTranscriptPage(new TranscriptFiles(), path, { offset }, false);
    expect(rest && (await bytesOf(rest)).length).toBe(w.bytes - offset);
    got.push(rest ? await bytesOf(rest) : Buffer.alloc(0));
    expect(Buffer.concat(got).equals(readFileSync(`${path}.moved`))).toBe(true);
    // Closed: nothing is kept, and pages come from the file (gone from the path now).
    await w.close();
    expect(recentOf(path)).toBeNull();
    expect(await readTranscript(path, { offset })).toBeNull();
  });

  it('serves a writer appending to a file already there at the file’s own offsets', async () => {
    const path = join(tempDir(), 'again.jsonl');
    const before = `${line(1, 50)}${line(2, 70)}`;
    writeFileSync(path, before);
    const w = new TranscriptWriter(path, 0);
    await w.opened();
    const files = new TranscriptFiles();
    onTestFinished(() => files.close());
    // A follower asks at the end, then the writer writes: its bytes sit after the old ones.
    expect((await openTranscriptPage(files, path, { offset: before.length }, true))?.length).toBe(
      0,
    );
    w.writeLines(Buffer.from(`${line(3, 40)}${line(4, 90)}`));
    await w.flushed();
    renameSync(path, `${path}.moved`);
    const page = await openTranscriptPage(
      new TranscriptFiles(),
      path,
      { offset: before.length },
      false,
    );
    const body = page ? await bytesOf(page) : Buffer.alloc(0);
    expect(body.toString()).toBe(`${line(3, 40)}${line(4, 90)}`);
    expect(page?.nextOffset).toBe(readFileSync(`${path}.moved`).length);
    await w.close();
  });

  it('sends a page of an agent’s single-line writes in slices of at most 256 KiB, not a write a line', async () => {
    const { path, w, files } = await openWriter();
    expect((await openTranscriptPage(files, path, { offset: 0 }, true))?.length).toBe(0);
    // An agent's stream is written a line at a time: each line is its own buffer in the window.
    for (let i = 0; i < 20_000; i++) w.write(line(i, 100).trimEnd());
    await w.flushed();
    const page = await openTranscriptPage(files, path, { offset: 0 }, true);
    if (!page || Buffer.isBuffer(page.body)) throw new Error('expected a streamed page');
    const pieces: Buffer[] = [];
    for await (const piece of page.body) pieces.push(piece as Buffer);
    expect(pieces.length).toBe(Math.ceil(page.length / (256 * 1024)));
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(256 * 1024);
    expect(Buffer.concat(pieces).equals(readFileSync(path))).toBe(true);
    // A small page of many lines is one buffer.
    const small = await openTranscriptPage(files, path, { offset: 0, limit: 1000 }, true);
    expect(
      small &&
        Buffer.isBuffer(small.body) &&
        small.body.equals(readFileSync(path).subarray(0, 1000)),
    ).toBe(true);
    await w.close();
  });
});
