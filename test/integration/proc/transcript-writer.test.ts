// Issue 22 point 4 (decision 232): transcripts are written off the event loop, in batches, and
// keep every byte in order; a batch of lines latches exactly where lines written one by one do;
// a file system error is reported, never thrown; disk-full mode (decision 180) stops a writer at
// its next line and its next write, whatever was queued. Writers share a lane (decision 251): one
// write at a time across every transcript, what waits going out together.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DiskLane,
  recentOf,
  TRANSCRIPT_HIGH_WATER,
  TranscriptWriter,
} from '../../../kernel/proc/index.js';
import { swapFs } from '../../support/faults.js';
import { tempDir } from '../../support/tmp.js';

const line = (i: number, width = 40) => `${JSON.stringify({ i, text: 'x'.repeat(width) })}\n`;

describe('transcript writer', () => {
  it('keeps every line in order across batches, and flushed() means on disk', async () => {
    const path = join(tempDir(), 'd', '0-1.jsonl');
    const t = new TranscriptWriter(path, 0);
    const want: string[] = ['{"run_id":1,"type":"svc.step_started","ts":"T"}\n'];
    let size = want[0]?.length ?? 0;
    t.annotate('step_started', { run_id: 1 }, 'T');
    for (let i = 0; i < 5000; i++) {
      const text = i % 2 ? line(i) : line(i) + line(-i);
      want.push(text);
      size += text.length;
      if (i % 2) expect(t.write(text.trimEnd())).toBe(size);
      else expect(t.writeLines(Buffer.from(text))).toEqual({ taken: text.length, offset: size });
    }
    expect(t.bytes).toBe(size);
    await t.flushed();
    expect(t.pending).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(want.join(''));
    await t.close();
    expect(t.write('late')).toBeNull();
  });

  it('opens a file in a directory already there without making it again; makes a missing one', async () => {
    // A step's start waits for the open: one call to the thread pool where the directory exists
    // (the runner makes a task's ahead, while its worktree is cut), two where it does not.
    const made: string[] = [];
    swapFs('mkdir', (mkdir) => (path: string, ...rest: unknown[]) => {
      made.push(path);
      return (mkdir as (...a: unknown[]) => void)(path, ...rest);
    });
    const dir = join(tempDir(), '7');
    TranscriptWriter.prepareDir(dir);
    await new Promise<void>((r) => {
      const wait = () => (made.length > 0 && existsSync(dir) ? r() : setTimeout(wait, 5));
      wait();
    });
    made.length = 0;
    const there = new TranscriptWriter(join(dir, '0-1.jsonl'), 0);
    await there.opened();
    expect(there.failure).toBeNull();
    expect(made).toEqual([]);
    const missing = new TranscriptWriter(join(dir, 'deeper', 'still', '0-1.jsonl'), 0);
    await missing.opened();
    expect(missing.failure).toBeNull();
    expect(made).toEqual([join(dir, 'deeper', 'still')]);
    expect(missing.write('kept')).not.toBeNull();
    await missing.close();
    expect(readFileSync(missing.path, 'utf8')).toBe('kept\n');
    await there.close();
  });

  it('a batch latches where the same lines written one by one latch', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => line(i, i * 3));
    for (const max of [1, 50, 333, 700, 1200, 5000]) {
      const one = new TranscriptWriter(join(tempDir(), 'a.jsonl'), max);
      for (const l of lines) one.write(l);
      const batch = new TranscriptWriter(join(tempDir(), 'b.jsonl'), max);
      const put = batch.writeLines(Buffer.from(lines.slice(0, 10).join('')));
      batch.writeLines(Buffer.from(lines.slice(10).join('')));
      await one.close();
      await batch.close();
      expect(readFileSync(batch.path, 'utf8'), `max ${max}`).toBe(readFileSync(one.path, 'utf8'));
      expect(batch.latched).toBe(one.latched);
      expect(put?.offset).toBeLessThanOrEqual(batch.bytes);
    }
  });

  it('says when a producer should wait, and when the disk has caught up', async () => {
    const t = new TranscriptWriter(join(tempDir(), 'p.jsonl'), 0);
    const chunk = Buffer.from(`${'y'.repeat(1023)}\n`.repeat(64));
    while (t.pending <= TRANSCRIPT_HIGH_WATER) t.writeLines(chunk);
    await t.drained();
    expect(t.pending).toBeLessThanOrEqual(TRANSCRIPT_HIGH_WATER / 4);
    await t.close();
    expect(readFileSync(t.path).length).toBe(t.bytes);
  });

  it('reports a file that cannot be opened, once, and drops what follows', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), '');
    const failures: string[] = [];
    const t = new TranscriptWriter(join(dir, 'file', '0-1.jsonl'), 0, undefined, (err) =>
      failures.push(err.code ?? ''),
    );
    t.write('a');
    await t.flushed();
    expect(t.failure?.code).toMatch(/ENOTDIR|EEXIST/);
    expect(failures).toHaveLength(1);
    expect(t.write('b')).toBeNull();
    await t.close();
  });

  it('reports a path already there that cannot be appended to (a directory), once', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, '0-1.jsonl'));
    const failures: string[] = [];
    const t = new TranscriptWriter(join(dir, '0-1.jsonl'), 0, undefined, (err) =>
      failures.push(err.code ?? ''),
    );
    t.write('a');
    await t.flushed();
    expect(t.failure?.code).toBe('EISDIR');
    expect(failures).toEqual(['EISDIR']);
    expect(t.write('b')).toBeNull();
    await t.close();
  });

  it('reports a full disk (ENOSPC) without throwing', async () => {
    const dir = tempDir();
    symlinkSync('/dev/full', join(dir, 'full.jsonl'));
    let failed = 0;
    const t = new TranscriptWriter(join(dir, 'full.jsonl'), 0, undefined, () => failed++);
    t.annotate('step_started', {}, 'T');
    await t.flushed();
    expect(t.failure?.code).toBe('ENOSPC');
    expect(failed).toBe(1);
    // A failed writer's followers read the file: nothing of it is served from memory.
    expect(recentOf(t.path)).toBeNull();
    expect(t.writeLines(Buffer.from('x\n'))).toBeNull();
    await t.close();
  });

  it('stops at the next write once the data disk is full, dropping what was queued', async () => {
    const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    let refusing = false;
    const failures: unknown[] = [];
    const t = new TranscriptWriter(
      join(tempDir(), 'q.jsonl'),
      0,
      undefined,
      (err) => failures.push(err),
      () => (refusing ? full : null),
    );
    // Queued while the file is still being opened: the first write is asked first, and refused.
    expect(t.write('queued')).not.toBeNull();
    refusing = true;
    await t.flushed();
    expect(t.failure).toBe(full);
    expect(failures).toEqual([full]);
    expect(t.write('later')).toBeNull();
    await t.close();
    expect(readFileSync(t.path, 'utf8')).toBe('');
  });

  it('refuses the next line once the data disk is full, with a write in flight', async () => {
    const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    let refusing = false;
    let failed = 0;
    const t = new TranscriptWriter(
      join(tempDir(), 'r.jsonl'),
      0,
      undefined,
      () => failed++,
      () => (refusing ? full : null),
    );
    const before = line(1);
    t.write(before.trimEnd());
    await t.flushed();
    const chunk = Buffer.from(`${'z'.repeat(1023)}\n`.repeat(256));
    expect(t.writeLines(chunk)).not.toBeNull();
    expect(t.writeLines(chunk)).not.toBeNull();
    refusing = true;
    expect(t.writeLines(Buffer.from('x\n'))).toBeNull();
    expect(t.annotate('step_finished', {}, 'T')).toBeUndefined();
    expect(t.failure).toBe(full);
    expect(failed).toBe(1);
    await t.close();
    // The write in flight lands before close() resolves; what was only queued never follows it.
    expect(readFileSync(t.path, 'utf8')).toBe(before + chunk.toString());
  });

  it('takes turns on a shared lane: one write at a time, what waited going out together', async () => {
    let running = 0;
    let most = 0;
    let turns = 0;
    const lane = new DiskLane(1);
    const take = lane.take.bind(lane);
    lane.take = (start) =>
      take((done) => {
        turns++;
        most = Math.max(most, ++running);
        start(() => {
          running--;
          done();
        });
      });
    const dir = tempDir();
    const writers = Array.from(
      { length: 4 },
      (_, i) =>
        new TranscriptWriter(join(dir, `${i}.jsonl`), 0, undefined, undefined, undefined, lane),
    );
    const want = writers.map(() => '');
    for (let i = 0; i < 400; i++) {
      const w = i % 4;
      const text = line(i, 200);
      want[w] += text;
      writers[w]?.writeLines(Buffer.from(text));
    }
    await Promise.all(writers.map((w) => w.close()));
    expect(most).toBe(1);
    // 400 lines, yet far fewer writes: a writer's lines gather while it waits for its turn.
    expect(turns).toBeLessThan(40);
    writers.forEach((w, i) => {
      expect(readFileSync(w.path, 'utf8')).toBe(want[i]);
    });
  });

  it('durable(at) waits for the bytes it names to be on disk, not for lines accepted after them', async () => {
    // A lane that holds every write until the test lets it go, so "on disk" is observed, not raced.
    const lane = new DiskLane(1);
    const held: Array<() => void> = [];
    const take = lane.take.bind(lane);
    lane.take = (start) => held.push(() => take(start));
    const t = new TranscriptWriter(
      join(tempDir(), 'w.jsonl'),
      0,
      undefined,
      undefined,
      undefined,
      lane,
    );
    await t.opened();
    t.annotate('step_started', { run_id: 1 }, 'T');
    const first = t.bytes;
    let firstOnDisk = false;
    const waited = t.durable(first).then(() => {
      firstOnDisk = true;
    });
    let allOnDisk = false;
    const flushed = t.flushed().then(() => {
      allOnDisk = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(firstOnDisk).toBe(false);
    // The first line's write goes out; a line accepted meanwhile waits for a write of its own,
    // which the lane holds.
    held.shift()?.();
    t.annotate('command_started', { command: 'true' }, 'T');
    await waited;
    expect(readFileSync(t.path, 'utf8')).toBe('{"run_id":1,"type":"svc.step_started","ts":"T"}\n');
    expect(allOnDisk).toBe(false);
    // Asked again for bytes already on disk: at once.
    await t.durable(first);
    while (!allOnDisk) {
      held.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await flushed;
    expect(readFileSync(t.path, 'utf8')).toContain('svc.command_started');
    await t.close();
  });

  it('durable() resolves for a writer that failed, which then says why', async () => {
    const dir = tempDir();
    symlinkSync('/dev/full', join(dir, 'full.jsonl'));
    const t = new TranscriptWriter(join(dir, 'full.jsonl'), 0);
    t.annotate('step_started', { run_id: 1 }, 'T');
    await t.durable();
    expect(t.failure?.code).toBe('ENOSPC');
    await t.close();
  });

  it('a writer failing while it waits for its turn writes nothing and gives the turn back', async () => {
    const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    const lane = new DiskLane(1);
    let release = () => {};
    lane.take((done) => {
      release = done;
    });
    let refusing = false;
    const t = new TranscriptWriter(
      join(tempDir(), 'w.jsonl'),
      0,
      undefined,
      undefined,
      () => (refusing ? full : null),
      lane,
    );
    await t.opened();
    expect(t.write('waiting for the lane')).not.toBeNull();
    expect(lane.queued).toBe(1);
    refusing = true;
    release();
    await t.close();
    expect(t.failure).toBe(full);
    expect(readFileSync(t.path, 'utf8')).toBe('');
    expect(lane.busy).toBe(0);
    expect(lane.queued).toBe(0);
  });
});
