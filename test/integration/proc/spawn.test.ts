// proc: process groups, graceful-then-forced kill on the injected clock, transcripts that latch.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock, SystemClock } from '../../../kernel/clock/index.js';
import { readTranscript } from '../../../kernel/http/transcript.js';
import { resolveEnvironment, startProcess, TranscriptWriter } from '../../../kernel/proc/index.js';
import { waitFor } from '../../support/app.js';
import { tempDir } from '../../support/tmp.js';

const sh = (script: string) => ({ file: '/bin/sh', args: ['-c', script] });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('startProcess', () => {
  it('feeds stdin, captures output and the exit code', async () => {
    let out = '';
    const p = startProcess({
      ...sh('cat; echo err >&2; exit 3'),
      cwd: tempDir(),
      env: { PATH: process.env.PATH ?? '' },
      stdin: 'hello\n',
      clock: new SystemClock(),
      onStdout: (c) => (out += c),
    });
    const r = await p.done;
    expect(r).toMatchObject({ exitCode: 3, timedOut: false, aborted: false, spawnError: null });
    expect(out).toBe('hello\n');
  });

  it('reports a missing executable as a spawn error, not a crash', async () => {
    const p = startProcess({
      file: '/no/such/binary',
      args: [],
      cwd: tempDir(),
      env: {},
      clock: new SystemClock(),
    });
    const r = await p.done;
    expect(r.spawnError?.code).toBe('ENOENT');
  });

  it('cancel terminates the whole process tree, then kills what ignores SIGTERM after the grace', async () => {
    const clock = new FakeClock(0);
    const dir = tempDir();
    const ac = new AbortController();
    // The grandchild ignores SIGTERM; only the forced kill after the grace period ends it.
    const p = startProcess({
      // The grandchild writes its pid only once it ignores SIGTERM, so the abort cannot race the trap.
      ...sh(
        `trap '' TERM; /bin/sh -c 'trap "" TERM; echo $$ > ${dir}/grandchild; exec sleep 60' & wait`,
      ),
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      signal: ac.signal,
      clock,
    });
    const gc = Number(
      await waitFor(
        () =>
          existsSync(join(dir, 'grandchild')) &&
          readFileSync(join(dir, 'grandchild'), 'utf8').trim(),
      ),
    );
    ac.abort();
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(gc)).toBe(true);
    await clock.advance('10s');
    const r = await p.done;
    expect(r.aborted).toBe(true);
    await waitFor(() => !alive(gc), 3000);
  });

  it('times out on the injected clock', async () => {
    const clock = new FakeClock(0);
    const p = startProcess({
      ...sh('sleep 30'),
      cwd: tempDir(),
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 15 * 60_000,
      clock,
    });
    await clock.advance('14m');
    await new Promise((r) => setTimeout(r, 50));
    await clock.advance('1m');
    const r = await p.done;
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe('SIGTERM');
  });
});

describe('environment policy', () => {
  const base = { PATH: '/bin', HOME: '/h', SECRET: 's', KEEP: 'k' };
  it('inherits all, a list, or none, then unsets, then sets literally', () => {
    expect(
      resolveEnvironment({ inherit: 'all', unset: ['SECRET'], set: { X: '$HOME' } }, base),
    ).toEqual({ PATH: '/bin', HOME: '/h', KEEP: 'k', X: '$HOME' });
    expect(resolveEnvironment({ inherit: ['PATH', 'NOPE'], unset: [], set: {} }, base)).toEqual({
      PATH: '/bin',
    });
    expect(resolveEnvironment({ inherit: 'none', unset: [], set: { A: '1' } }, base)).toEqual({
      A: '1',
    });
    expect(resolveEnvironment({ inherit: 'all', unset: ['A'], set: { A: '2' } }, base).A).toBe('2');
  });
});

describe('transcripts', () => {
  it('latch past the cap: the crossing line whole, a limit line, then nothing', async () => {
    const path = join(tempDir(), 't', '0-1.jsonl');
    let latched = 0;
    const t = new TranscriptWriter(path, 100, () => latched++);
    expect(t.write({ n: 1, text: 'x'.repeat(40) })).not.toBeNull();
    expect(t.write({ n: 2, text: 'y'.repeat(60) })).not.toBeNull();
    expect(t.write({ n: 3 })).toBeNull();
    await t.close();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.n ?? l.type)).toEqual([1, 2, 'svc.transcript_limit']);
    expect(latched).toBe(1);
  });

  it('serve complete lines from an offset or a tail, with the next offset', async () => {
    const path = join(tempDir(), 'x.jsonl');
    const t = new TranscriptWriter(path, 0);
    for (let i = 0; i < 10; i++) t.write({ i });
    await t.close();
    const all = await readTranscript(path, {});
    expect(all?.body.toString().trim().split('\n')).toHaveLength(10);
    // 20 bytes back lands inside line 7; the slice snaps back to that line's start.
    const tail = await readTranscript(path, { tail: 20 });
    expect(tail?.body.toString()).toBe('{"i":7}\n{"i":8}\n{"i":9}\n');
    expect((await readTranscript(path, { tail: 16 }))?.body.toString()).toBe('{"i":8}\n{"i":9}\n');
    expect(tail?.nextOffset).toBe(all?.size);
    const from = await readTranscript(path, { offset: all?.size ?? 0 });
    expect(from?.body.length).toBe(0);
    const mid = await readTranscript(path, { offset: 8 });
    expect(mid?.body.toString().startsWith('{"i":1}')).toBe(true);
    expect(await readTranscript(join(tempDir(), 'missing'), {})).toBeNull();
  });
});
