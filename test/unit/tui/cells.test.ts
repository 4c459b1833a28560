// Issue 12 point 1: state, current step with loop progress and lane counts, cost, duration,
// queued reason, the quota badge per agent, and tui.hyperlinks.
import { describe, expect, it } from 'vitest';
import {
  clip,
  clockTime,
  costCell,
  durationCell,
  fileUrl,
  hyperlink,
  isZeroTime,
  quotaBadge,
  stateCell,
  stepCell,
  timeLeft,
  windowAround,
} from '../../../cli/tui/cells.js';
import { row } from './fixtures.js';

const at = (hhmm: string) => new Date(`2026-11-21T${hhmm}:00`).toISOString();
const NOW = Date.parse(at('12:00'));

describe('stateCell', () => {
  it('names why a task is blocked or waits on a clock', () => {
    expect(stateCell(row(1, { state: 'blocked', block_reason: 'step_failed' })).text).toBe(
      'blocked: step_failed',
    );
    expect(
      stateCell(
        row(1, { state: 'queued', queued_reason: 'usage_limit', admit_not_before: at('14:05') }),
        NOW,
      ).text,
    ).toBe('queued: usage_limit, 2h05m left');
    // SPEC §9: a reason this client never heard of still renders.
    expect(stateCell(row(1, { state: 'queued', queued_reason: 'solar_flare' })).text).toBe(
      'queued: solar_flare',
    );
    expect(stateCell(row(1, { state: 'queued' })).text).toBe('queued');
    expect(stateCell(row(1, { pause_requested: true })).text).toBe('running (pausing)');
    expect(stateCell(row(1, { state: 'blocked', open_chat_id: 4 })).text).toBe('blocked · chat #4');
  });

  it('gives each state a tone', () => {
    expect(stateCell(row(1, { state: 'blocked' })).tone).toBe('bad');
    expect(stateCell(row(1, { state: 'awaiting_gate' })).tone).toBe('warn');
    expect(stateCell(row(1, { state: 'done' })).tone).toBe('good');
    expect(stateCell(row(1, { state: 'something_new' })).tone).toBe('normal');
  });
});

describe('stepCell', () => {
  it('shows the step, the loop progress (total, else max) and lane counts', () => {
    expect(stepCell(row(1, { current_step: 1, step_name: 'test' }))).toBe('2/3 test');
    expect(
      stepCell(
        row(1, {
          step_name: 'each',
          loop: { iteration: 2, max_iterations: 10, total: 4, item: 'api' },
        }),
      ),
    ).toBe('1/3 each · loop 2/4 api');
    expect(stepCell(row(1, { loop: { iteration: 0, max_iterations: 10 } }))).toBe(
      '1/3 plan · loop 0/10',
    );
    expect(
      stepCell(row(1, { step_name: 'split' }), {
        total: 3,
        settled: 1,
        blocked: 1,
        awaiting_gate: 0,
      }),
    ).toBe('1/3 split · lanes 1/3 (1 blocked)');
    expect(stepCell(row(1, { current_step: 3, step_name: '' }))).toBe('3/3');
  });
});

describe('costCell and durationCell', () => {
  it('keeps null apart from zero', () => {
    expect(costCell(null)).toBe('—');
    expect(costCell(0)).toBe('$0.00');
    expect(costCell(0.004)).toBe('<$0.01');
    expect(costCell(1.234)).toBe('$1.23');
  });

  it('counts from the start (or creation while waiting) and freezes at the finish', () => {
    expect(durationCell(row(1, { started_at: at('11:58') }), NOW)).toBe('2m00s');
    expect(durationCell(row(1, { started_at: null, created_at: at('11:59') }), NOW)).toBe('1m00s');
    expect(
      durationCell(
        row(1, { started_at: at('10:00'), finished_at: at('10:00').replace('00.000Z', '05.000Z') }),
        NOW,
      ),
    ).toBe('5s');
  });
});

describe('quotaBadge', () => {
  const base = {
    observed_at: at('11:00'),
    source: 'observed',
    resets_at_reported: true,
    window: null,
  };
  it('reads SPEC §2.4 blocks', () => {
    expect(quotaBadge({ name: 'cursor', available: false, quota: null })).toEqual({
      text: 'cursor not installed',
      tone: 'muted',
    });
    expect(quotaBadge({ name: 'cursor', available: true, quota: null }).text).toBe('cursor —');
    expect(
      quotaBadge(
        {
          name: 'claude',
          available: true,
          quota: { ...base, spent: true, used_percent: null, resets_at: at('14:05') },
        },
        NOW,
      ),
    ).toEqual({ text: 'claude spent until 14:05', tone: 'bad' });
    // The zero time (a window that named no reset) is never rendered.
    expect(
      quotaBadge({
        name: 'claude',
        available: true,
        quota: { ...base, spent: true, used_percent: 100, resets_at: '0001-01-01T00:00:00Z' },
      }).text,
    ).toBe('claude spent');
    expect(
      quotaBadge({
        name: 'codex',
        available: true,
        quota: { ...base, spent: false, used_percent: 83.6, window: '5h', resets_at: at('15:00') },
      }),
    ).toEqual({ text: 'codex 84% 5h', tone: 'warn' });
    expect(
      quotaBadge({
        name: 'codex',
        available: true,
        quota: { ...base, spent: false, used_percent: null, resets_at: at('11:30') },
      }).text,
    ).toBe('codex ok');
  });
});

describe('timeLeft', () => {
  it('counts down compactly', () => {
    const in_ = (ms: number) => new Date(NOW + ms).toISOString();
    expect(timeLeft(in_(-5000), NOW)).toBe('0s');
    expect(timeLeft(in_(45_000), NOW)).toBe('45s');
    expect(timeLeft(in_(59 * 60_000), NOW)).toBe('59m');
    expect(timeLeft(in_(3 * 3600_000 + 5 * 60_000), NOW)).toBe('3h05m');
    expect(timeLeft(in_(52 * 3600_000), NOW)).toBe('2d04h');
  });
});

describe('hyperlinks and text', () => {
  it('wraps text in OSC 8 only when tui.hyperlinks is on', () => {
    expect(hyperlink('wt', 'file:///wt', false)).toBe('wt');
    expect(hyperlink('wt', 'file:///wt', true)).toBe(
      '\u001b]8;;file:///wt\u0007wt\u001b]8;;\u0007',
    );
    expect(hyperlink('wt', undefined, true)).toBe('wt');
    expect(fileUrl('/tmp/a b/c')).toBe('file:///tmp/a%20b/c');
  });

  it('formats clock times and spots the zero time', () => {
    expect(clockTime(at('09:07'), NOW)).toBe('09:07');
    expect(clockTime(new Date('2026-11-23T09:07:00').toISOString(), NOW)).toBe('11-23 09:07');
    expect(isZeroTime('0001-01-01T00:00:00Z')).toBe(true);
    expect(isZeroTime(at('09:07'))).toBe(false);
    expect(clip('abcdef', 4)).toBe('abc…');
    expect(clip('abc', 4)).toBe('abc');
  });
});

describe('windowAround', () => {
  const lines = ['HEAD', ...Array.from({ length: 20 }, (_, i) => (i === 10 ? `>${i}` : ` ${i}`))];
  it('keeps the header and the focused line, marking what was left out', () => {
    const w = windowAround(lines, (l) => l.startsWith('>'), 8);
    expect(w).toHaveLength(8);
    expect(w[0]).toBe('HEAD');
    expect(w).toContain('>10');
    expect(w[1]).toBe('…');
    expect(w.at(-1)).toBe('…');
    expect(windowAround(lines, () => false, 8).slice(0, 3)).toEqual(['HEAD', ' 0', ' 1']);
    expect(windowAround(lines.slice(0, 5), () => false, 8)).toHaveLength(5);
    const end = windowAround(lines, (l) => l === ' 19', 8);
    expect(end).toEqual(['HEAD', '…', ' 14', ' 15', ' 16', ' 17', ' 18', ' 19']);
    for (let i = 0; i < 20; i++) {
      const w = windowAround(lines, (l) => l.trim().replace('>', '') === String(i), 8);
      expect(w).toHaveLength(8);
      expect(w.some((l) => l.trim().replace('>', '') === String(i))).toBe(true);
    }
  });
});
