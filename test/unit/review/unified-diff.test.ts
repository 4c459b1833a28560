// Issue 16: one reading of `git diff` output for the daemon's review composer and the board's diff
// view — paths (quoted, renamed, binary, mode-only), hunks and the line numbers on each side.
import { describe, expect, it } from 'vitest';
import { hunkExcerpt } from '../../../kernel/review/index.js';
import { hunkAt, parseUnifiedDiff, unquotePath } from '../../../shared/unified-diff.js';

const DIFF = [
  'diff --git a/src/a.ts b/src/a.ts',
  'index 1111111..2222222 100644',
  '--- a/src/a.ts',
  '+++ b/src/a.ts',
  '@@ -1,4 +1,5 @@ function top()',
  ' one',
  '-two',
  '+deux',
  '+zwei',
  ' three',
  ' four\r',
  '\\ No newline at end of file',
  'diff --git a/old name.txt b/new name.txt',
  'similarity index 100%',
  'rename from old name.txt',
  'rename to new name.txt',
  'diff --git "a/t\\303\\251st.txt" "b/t\\303\\251st.txt"',
  'new file mode 100644',
  'index 0000000..3333333',
  '--- /dev/null',
  '+++ "b/t\\303\\251st.txt"',
  '@@ -0,0 +1 @@',
  '+é',
  'diff --git a/img.png b/img.png',
  'new file mode 100644',
  'index 0000000..4444444',
  'Binary files /dev/null and b/img.png differ',
  'diff --git a/run.sh b/run.sh',
  'old mode 100644',
  'new mode 100755',
  '',
].join('\n');

describe('parseUnifiedDiff', () => {
  it('reads paths, renames, binaries and mode-only changes', () => {
    const files = parseUnifiedDiff(DIFF);
    expect(files.map((f) => [f.path, f.oldPath, f.binary, f.hunks.length])).toEqual([
      ['src/a.ts', null, false, 1],
      ['new name.txt', 'old name.txt', false, 0],
      ['tést.txt', null, false, 1],
      ['img.png', null, true, 0],
      ['run.sh', null, false, 0],
    ]);
  });

  it('numbers each line on its side, keeps a CR, and finds the hunk of a line', () => {
    const [a] = parseUnifiedDiff(DIFF);
    const lines = a?.hunks[0]?.lines ?? [];
    expect(lines.map((l) => [l.kind, l.old, l.new])).toEqual([
      ['context', 1, 1],
      ['del', 2, null],
      ['add', null, 2],
      ['add', null, 3],
      ['context', 3, 4],
      ['context', 4, 5],
      ['note', null, null],
    ]);
    expect(lines[5]?.text).toBe('four\r');
    expect(a?.hunks[0]?.section).toBe('function top()');
    expect(hunkAt(a as never, 3)?.index).toBe(3);
    expect(hunkAt(a as never, 2, 'old')?.index).toBe(1);
    expect(hunkAt(a as never, 9)).toBeNull();
  });

  it('unquotes C-quoted paths', () => {
    expect(unquotePath('"a/t\\303\\251st"')).toBe('a/tést');
    expect(unquotePath('"tab\\there \\"q\\""')).toBe('tab\there "q"');
    expect(unquotePath('plain')).toBe('plain');
  });
});

describe('hunkExcerpt', () => {
  it('cuts a window around a line and recomputes the @@ header for it', () => {
    const body = Array.from({ length: 30 }, (_, i) => `+line ${i + 1}`).join('\n');
    const [file] = parseUnifiedDiff(
      `diff --git a/x b/x\n--- /dev/null\n+++ b/x\n@@ -0,0 +1,30 @@\n${body}\n`,
    );
    const hunk = file?.hunks[0];
    if (!hunk) throw new Error('no hunk');
    const text = hunkExcerpt(hunk, 14, 2);
    expect(text).toBe('@@ -0,0 +13,5 @@\n+line 13\n+line 14\n+line 15\n+line 16\n+line 17');
    const [a] = parseUnifiedDiff(DIFF);
    expect(hunkExcerpt(a?.hunks[0] as never, 2, 1)).toBe(
      '@@ -2 +2,2 @@ function top()\n-two\n+deux\n+zwei',
    );
  });
});
