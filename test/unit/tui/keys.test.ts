// Issue 12 point 1: actions by key with tui.keys rebinding (decision 142).
import { describe, expect, it } from 'vitest';
import { buildKeymap, keyLabel, moveFor, tokenOf } from '../../../cli/tui/keys.js';
import {
  DEFAULT_TUI_KEYS,
  DIFF_VIEW_OPERATIONS,
  TUI_OPERATIONS,
} from '../../../shared/tui-keys.js';

describe('tokenOf', () => {
  it.each([
    [{ input: 'a', key: {} }, 'a'],
    [{ input: 'A', key: { shift: true } }, 'A'],
    [{ input: '?', key: {} }, '?'],
    [{ input: ' ', key: {} }, 'space'],
    [{ input: '', key: { return: true } }, 'enter'],
    [{ input: '', key: { escape: true, meta: true } }, 'escape'],
    [{ input: 'r', key: { ctrl: true } }, 'ctrl+r'],
    [{ input: '', key: { upArrow: true } }, 'up'],
    [{ input: '', key: { pageDown: true } }, 'pagedown'],
    [{ input: '', key: { tab: true } }, 'tab'],
    [{ input: 'x', key: { meta: true } }, null],
    [{ input: 'ab', key: {} }, null],
  ])('%j is %s', (k, token) => expect(tokenOf(k)).toBe(token));
});

describe('buildKeymap', () => {
  it('binds every operation to its default without overrides, where it is looked up', () => {
    const k = buildKeymap({});
    for (const op of TUI_OPERATIONS) {
      expect(k.keyOf(op)).toBe(DEFAULT_TUI_KEYS[op]);
      const scope = (DIFF_VIEW_OPERATIONS as readonly string[]).includes(op) ? 'diff' : 'board';
      expect(k.opFor(DEFAULT_TUI_KEYS[op], scope)).toBe(op);
    }
  });

  it('looks diff-view keys up only in the diff view, and the gate’s actions in both (decision 174)', () => {
    const k = buildKeymap({});
    expect(k.opFor('n')).toBe('new_task');
    expect(k.opFor('n', 'diff')).toBe('next_file');
    expect(k.opFor('c')).toBe('cancel');
    expect(k.opFor('c', 'diff')).toBe('comment');
    expect(k.opFor('a', 'diff')).toBe('approve');
    expect(k.opFor('x', 'diff')).toBe('reject');
    expect(k.opFor('r', 'diff')).toBeUndefined();
    expect(k.opFor('d')).toBe('diff');
    // A rebind that clashes only in the diff view is dropped; one on a board-only key is kept.
    const r = buildKeymap({ next_file: 'a', prev_file: 'r' });
    expect(r.keyOf('next_file')).toBe('n');
    expect(r.opFor('r', 'diff')).toBe('prev_file');
    expect(r.opFor('r')).toBe('retry');
    // A gate action rebound onto a diff-view default (valid before the view existed) wins there;
    // the diff-view operation moves to its alternate key.
    const yesNo = buildKeymap({ approve: 'y', reject: 'n', new_task: 'N' });
    expect(yesNo.opFor('n', 'diff')).toBe('reject');
    expect(yesNo.opFor(']', 'diff')).toBe('next_file');
    expect(yesNo.label('next_file')).toBe(']');
    const both = buildKeymap({ approve: 'n', reject: ']', new_task: 'N' });
    expect(both.label('next_file')).toBe('unbound');
    expect(both.opFor('n', 'diff')).toBe('approve');
  });

  it('applies rebinds, freeing the old key', () => {
    const k = buildKeymap({ approve: 'y', reject: 'N' });
    expect(k.opFor('y')).toBe('approve');
    expect(k.opFor('a')).toBeUndefined();
    expect(k.opFor('N')).toBe('reject');
    expect(k.label('approve')).toBe('y');
  });

  it('ignores what an older daemon might relay: unknown operations, bad keys, clashes', () => {
    const k = buildKeymap({ launch: 'l', approve: 'up', cancel: 'x' });
    expect(k.opFor('l')).toBeUndefined();
    expect(k.keyOf('approve')).toBe('a');
    // cancel → x would clash with reject's default: both keep their defaults.
    expect(k.keyOf('cancel')).toBe('c');
    expect(k.opFor('x')).toBe('reject');
  });

  it('labels keys for hints', () => {
    expect(keyLabel('enter')).toBe('⏎');
    expect(keyLabel('escape')).toBe('esc');
    expect(keyLabel('ctrl+r')).toBe('^R');
    expect(keyLabel('A')).toBe('A');
  });
});

describe('moveFor', () => {
  it('moves by one, a page, or to either end', () => {
    expect(moveFor('j', 5)).toBe(1);
    expect(moveFor('up', 5)).toBe(-1);
    expect(moveFor('pagedown', 5)).toBe(5);
    expect(moveFor('home', 5)).toBe('first');
    expect(moveFor('end', 5)).toBe('last');
    expect(moveFor('a', 5)).toBeNull();
  });
});
