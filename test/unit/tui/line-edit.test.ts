// The prompt line every text input of the board uses.
import { describe, expect, it } from 'vitest';
import { cursorParts, editLine, emptyLine, type Line } from '../../../cli/tui/line-edit.js';

function type(line: Line, ...keys: Array<string | Record<string, boolean>>): Line {
  let l = line;
  for (const k of keys) {
    const r = editLine(l, typeof k === 'string' ? { input: k, key: {} } : { input: '', key: k });
    if (r.kind === 'edit') l = r.line;
  }
  return l;
}

describe('editLine', () => {
  it('inserts at the cursor, moves, deletes back, clears', () => {
    expect(
      type(emptyLine(), 'hllo', { leftArrow: true }, { leftArrow: true }, { leftArrow: true }, 'e'),
    ).toEqual({
      value: 'hello',
      cursor: 2,
    });
    expect(type(emptyLine('abc'), { delete: true })).toEqual({ value: 'ab', cursor: 2 });
    expect(
      type(emptyLine('abc'), { backspace: true }, { home: true }, { backspace: true }),
    ).toEqual({
      value: 'ab',
      cursor: 0,
    });
    expect(editLine(emptyLine('abc'), { input: 'u', key: { ctrl: true } })).toEqual({
      kind: 'edit',
      line: { value: '', cursor: 0 },
    });
  });

  it('turns pasted newlines into spaces and ignores control keys', () => {
    expect(type(emptyLine(), 'a\nb')).toEqual({ value: 'a b', cursor: 3 });
    expect(type(emptyLine('x'), { tab: true }, { upArrow: true })).toEqual({
      value: 'x',
      cursor: 1,
    });
  });

  it('submits on enter and cancels on escape', () => {
    expect(editLine(emptyLine('x'), { input: '', key: { return: true } })).toEqual({
      kind: 'submit',
    });
    expect(editLine(emptyLine('x'), { input: '', key: { escape: true } })).toEqual({
      kind: 'cancel',
    });
  });

  it('splits around the cursor for drawing', () => {
    expect(cursorParts({ value: 'abc', cursor: 1 })).toEqual({ before: 'a', at: 'b', after: 'c' });
    expect(cursorParts({ value: 'abc', cursor: 3 })).toEqual({ before: 'abc', at: ' ', after: '' });
  });
});
