// The command source through its kind's contract suite, plus its own reading of output.
import { describe, expect, it } from 'vitest';
import { describeTriggerSource } from '../../../test/support/describe-trigger-source.js';
import plugin, { commandSource } from './index.js';
import { droppedEvents, nextCursor, parseCommandOutput } from './parse.js';

const lines = (...v: unknown[]) =>
  v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('\n');

describeTriggerSource(commandSource, {
  plugin,
  valid: [
    { type: 'command', command: ['./poll.sh'] },
    { type: 'command', command: ['gh', 'issue', 'list'], poll_interval: '30s', timeout: '10s' },
  ],
  invalid: [
    { def: { type: 'command' }, path: 'command' },
    { def: { type: 'command', command: [] }, path: 'command' },
    { def: { type: 'command', command: 'echo hi' }, path: 'command' },
    { def: { type: 'command', command: ['x'], poll_interval: '10ms' }, path: 'poll_interval' },
    { def: { type: 'command', command: ['x'], timeout: 'soon' }, path: 'timeout' },
  ],
  polls: [
    {
      name: 'seeding gets an empty cursor and SVC_TRIGGER_SEEDING=1, argv as written',
      def: { type: 'command', command: ['./poll.sh', '--json'] },
      cursor: null,
      ctx: { run: () => ({ stdout: lines({ id: 'a' }, { cursor: 'c1' }) }) },
      expect: (r, calls) => {
        expect(calls[0]?.argv).toEqual(['./poll.sh', '--json']);
        expect(calls[0]?.env).toEqual({
          SVC_TRIGGER_ID: 'contract',
          SVC_TRIGGER_CURSOR: '',
          SVC_TRIGGER_SEEDING: '1',
        });
        expect(r).toEqual({
          ok: true,
          events: [{ id: 'a' }],
          cursor: 'c1',
          truncated: 0,
          refused: 0,
        });
      },
    },
    {
      name: 'a later poll gets the cursor; numbers become string ids',
      def: { type: 'command', command: ['x'] },
      cursor: 'c1',
      ctx: { run: () => ({ stdout: lines({ id: 7, n: 1 }) }) },
      expect: (r, calls) => {
        expect(calls[0]?.env.SVC_TRIGGER_CURSOR).toBe('c1');
        expect(calls[0]?.env.SVC_TRIGGER_SEEDING).toBe('0');
        expect(r).toMatchObject({ ok: true, events: [{ id: '7', n: 1 }], cursor: null });
      },
    },
    {
      name: 'a non-zero exit is a failed poll naming the code and stderr',
      def: { type: 'command', command: ['x'] },
      cursor: '',
      ctx: { run: () => ({ code: 3, stdout: lines({ id: 'a' }), stderr: 'rate limited\n' }) },
      expect: (r) => expect(r).toEqual({ ok: false, error: 'x exited 3: rate limited' }),
    },
    {
      name: 'a timeout and an overflow are failed polls',
      def: { type: 'command', command: ['x'], timeout: '5s' },
      cursor: '',
      ctx: { run: () => ({ code: null, timedOut: true }) },
      expect: (r) => expect(r).toEqual({ ok: false, error: 'x did not finish within 5s' }),
    },
    {
      name: 'at most maxEvents events; the rest counted truncated',
      def: { type: 'command', command: ['x'] },
      cursor: '',
      ctx: {
        maxEvents: 2,
        run: () => ({ stdout: lines({ id: 1 }, { id: 2 }, { id: 3 }, 'junk') }),
      },
      expect: (r) => expect(r).toMatchObject({ ok: true, truncated: 1, refused: 1 }),
    },
  ],
});

describe('reading command output', () => {
  it('refuses every line that is not an event or a cursor, skipping blank lines', () => {
    const out = parseCommandOutput(
      lines(
        '',
        'plain text',
        '42',
        'null',
        '[{"id":1}]',
        { id: '' },
        { id: null },
        { cursor: {} },
        { title: 'x' },
        { id: 'ok' },
        '   ',
      ),
      20,
    );
    expect(out).toEqual({ events: [{ id: 'ok' }], watermark: null, truncated: 0, refused: 8 });
  });

  it('keeps the last watermark; a truncated live poll resumes from the last kept event’s cursor', () => {
    const out = parseCommandOutput(
      lines(
        { cursor: 'early' },
        { id: 'a', cursor: 'after-a' },
        { id: 'b', cursor: 'after-b' },
        { id: 'c' },
        { cursor: 5 },
      ),
      2,
    );
    expect(out.watermark).toBe('5');
    expect(out.truncated).toBe(1);
    expect(nextCursor(out, false)).toBe('after-b');
    // Seeding keeps the watermark: everything printed then is before arming.
    expect(nextCursor(out, true)).toBe('5');
    const untruncated = parseCommandOutput(lines({ id: 'a', cursor: 'x' }, { cursor: 'w' }), 20);
    expect(nextCursor(untruncated, false)).toBe('w');
  });

  it('names the events past the cap the next poll will not show again (decision 196)', () => {
    const resumable = parseCommandOutput(lines({ id: 'a', cursor: '1' }, { id: 'b' }), 1);
    expect(droppedEvents(resumable, false)).toEqual([]);
    const watermarked = parseCommandOutput(lines({ id: 'a' }, { id: 'b' }, { id: 'c' }), 1);
    expect(droppedEvents(watermarked, false)).toEqual([{ id: 'b' }, { id: 'c' }]);
    // A seeding poll resumes from nothing: every event past the cap is handed over to be seeded.
    expect(droppedEvents(resumable, true)).toEqual([{ id: 'b' }]);
  });
});
