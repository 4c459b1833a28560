// Issue 16 point 3: the diff view's reducer — moving the mark, comments on lines (kept, edited,
// removed), where a comment anchors, and the work it asks the App for.
import { describe, expect, it } from 'vitest';
import {
  anchorOf,
  type DiffState,
  diffKey,
  openDiff,
  rowsOf,
  withFile,
  withStat,
} from '../../../cli/tui/diff.js';
import { buildKeymap, type Keystroke } from '../../../cli/tui/keys.js';

const keymap = buildKeymap({});
const key = (input: string, k: Keystroke['key'] = {}): Keystroke => ({ input, key: k });
const DOWN = key('', { downArrow: true });
const ENTER = key('', { return: true });

const TEXT =
  'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n keep\r\n-old\n+new\n';
const STAT = {
  source: 'worktree',
  base_branch: 'main',
  files: [
    { path: 'a.txt', status: 'modified', additions: 1, deletions: 1, binary: false },
    { path: 'b.bin', status: 'added', additions: 0, deletions: 0, binary: true },
  ],
  additions: 1,
  deletions: 1,
  truncated: false,
};

function loaded(): DiffState {
  const opened = openDiff(4, 'board');
  expect(opened.effects).toEqual([{ kind: 'diff_stat', taskId: 4 }]);
  const step = withStat(opened.diff as DiffState, STAT);
  expect(step.effects).toEqual([{ kind: 'diff_file', taskId: 4, path: 'a.txt' }]);
  return withFile(step.diff as DiffState, 'a.txt', TEXT);
}

function press(d: DiffState, ...keys: Keystroke[]): DiffState {
  return keys.reduce((s, k) => diffKey(s, k, keymap, 10).diff as DiffState, d);
}

describe('the diff view', () => {
  it('draws rows with a CR removed and anchors deleted lines on the old side', () => {
    const rows = rowsOf(TEXT);
    expect(rows.map((r) => [r.kind, r.text])).toEqual([
      ['hunk', '@@ -1,2 +1,2 @@'],
      ['context', 'keep'],
      ['del', 'old'],
      ['add', 'new'],
    ]);
    expect(rows.map(anchorOf)).toEqual([
      null,
      { line: 1, side: 'new' },
      { line: 2, side: 'old' },
      { line: 2, side: 'new' },
    ]);
  });

  it('keeps a comment on the marked line, edits it, and removes it with empty text', () => {
    let d = press(loaded(), DOWN, DOWN, key('c'));
    expect(d.editing?.value).toBe('');
    d = press(d, key('why?'), ENTER);
    expect(d.notes).toEqual([{ path: 'a.txt', line: 2, side: 'old', body: 'why?' }]);
    d = press(d, key('c'));
    expect(d.editing?.value).toBe('why?');
    d = press(d, key('!'), ENTER);
    expect(d.notes.map((n) => n.body)).toEqual(['why?!']);
    // ctrl+u clears the line; an empty comment removes the note.
    d = press(d, key('c'), { input: 'u', key: { ctrl: true } }, ENTER);
    expect(d.notes).toEqual([]);
  });

  it('refuses a comment on a hunk header, asks before sending, then sends', () => {
    const d = loaded();
    expect(diffKey(d, key('c'), keymap, 10).flash?.text).toBe(
      'mark a line of the diff to comment on',
    );
    expect(diffKey(d, key('S'), keymap, 10).flash?.tone).toBe('error');
    const noted = press(d, DOWN, DOWN, DOWN, key('c'), key('ok'), ENTER);
    const asking = diffKey(noted, key('S'), keymap, 10).diff as DiffState;
    expect(asking.confirm).toBe('send');
    const sent = diffKey(asking, key('y'), keymap, 10);
    expect(sent.effects).toEqual([
      {
        kind: 'review_send',
        taskId: 4,
        body: { comments: [{ path: 'a.txt', line: 2, side: 'new', body: 'ok' }] },
      },
    ]);
  });

  it('walks files with n and p, reading each once, and hands approve to the board', () => {
    const d = loaded();
    const next = diffKey(d, key('n'), keymap, 10);
    expect(next.effects).toEqual([{ kind: 'diff_file', taskId: 4, path: 'b.bin' }]);
    const back = diffKey(next.diff as DiffState, key('p'), keymap, 10);
    expect(back.effects).toEqual([]);
    expect(diffKey(d, key('a'), keymap, 10).action).toBe('approve');
    expect(diffKey(d, key('', { escape: true }), keymap, 10).diff).toBeNull();
  });

  it('scrolls to keep the mark in view', () => {
    const long = `diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1,40 @@\n${Array.from({ length: 40 }, (_, i) => `+${i}`).join('\n')}\n`;
    let d = withFile(loaded(), 'a.txt', long);
    d = press(d, key('', { end: true }));
    expect(d.cursor).toBe(40);
    expect(d.top).toBe(31);
    d = press(d, key('', { home: true }));
    expect([d.cursor, d.top]).toEqual([0, 0]);
  });
});
