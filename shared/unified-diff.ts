/**
 * Reading a unified diff as `git diff` prints it (`diff --git` sections, `@@` hunks) into files,
 * hunks and numbered lines. The daemon uses it to find the hunk a review comment points into, and
 * the terminal board to draw and annotate a file's changes, so both count lines the same way. It
 * sits outside kernel/ and cli/ because both use it and the board imports nothing from the kernel
 * (decision 140): keep it free of imports.
 */

export type DiffLineKind = 'context' | 'add' | 'del' | 'note';

export interface DiffLine {
  kind: DiffLineKind;
  /** The line without its one-character prefix (a CR of a CRLF line is kept). */
  text: string;
  /** Its number in the old file (context and deleted lines), else null. */
  old: number | null;
  /** Its number in the new file (context and added lines), else null. */
  new: number | null;
}

export interface DiffHunk {
  /** The `@@ -a,b +c,d @@ section` line as printed. */
  header: string;
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  /** The function or heading git names after the second `@@` (may be empty). */
  section: string;
  lines: DiffLine[];
}

export interface DiffSection {
  /** The file's path after the change (before it, for a deleted file). */
  path: string;
  /** The path before a rename; null otherwise. */
  oldPath: string | null;
  /** The header lines from `diff --git` up to the first hunk. */
  header: string[];
  hunks: DiffHunk[];
  /** git printed `Binary files … differ` instead of hunks. */
  binary: boolean;
}

const ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 34,
  '\\': 92,
};

/** A path as git prints it: bare, or C-quoted (`"a/t\303\251st"`) when it holds special bytes. */
export function unquotePath(raw: string): string {
  if (!raw.startsWith('"') || !raw.endsWith('"') || raw.length < 2) return raw;
  const bytes: number[] = [];
  const body = raw.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== '\\') {
      for (const b of new TextEncoder().encode(c)) bytes.push(b);
      continue;
    }
    const next = body[i + 1] ?? '';
    const oct = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4));
    if (oct) {
      bytes.push(Number.parseInt(oct[0], 8));
      i += 3;
    } else {
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** `a/x` → `x`; `/dev/null` → null. */
function sidePath(raw: string): string | null {
  const p = unquotePath(raw.replace(/\t$/, ''));
  if (p === '/dev/null') return null;
  return p.replace(/^[ab]\//, '');
}

/** The two paths of `diff --git a/P b/Q` when no other header names them (binary, mode-only). */
function headerPaths(line: string): { a: string; b: string } | null {
  const rest = line.slice('diff --git '.length);
  if (rest.startsWith('"')) {
    const end = rest.indexOf('" ', 1);
    if (end < 0) return null;
    return { a: sidePath(rest.slice(0, end + 1)) ?? '', b: sidePath(rest.slice(end + 2)) ?? '' };
  }
  // Unquoted and equal on both sides (the common case): split in the middle.
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest.slice(2, half) === rest.slice(half + 3))
    return { a: rest.slice(2, half), b: rest.slice(half + 3) };
  const at = rest.indexOf(' b/');
  return at < 0 ? null : { a: rest.slice(2, at), b: rest.slice(at + 3) };
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

/** Every file section of a unified diff, in order. */
export function parseUnifiedDiff(text: string): DiffSection[] {
  const files: DiffSection[] = [];
  let file: DiffSection | null = null;
  let hunk: DiffHunk | null = null;
  let oldNo = 0;
  let newNo = 0;
  let minus: string | null | undefined;
  let plus: string | null | undefined;
  let renameFrom: string | null = null;
  let renameTo: string | null = null;
  const finish = () => {
    if (!file) return;
    const fromHeader = headerPaths(file.header[0] ?? '');
    const after = plus ?? renameTo ?? fromHeader?.b ?? null;
    const before = minus ?? renameFrom ?? fromHeader?.a ?? null;
    file.path = after ?? before ?? '';
    file.oldPath = before !== null && after !== null && before !== after ? before : null;
  };
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      finish();
      file = { path: '', oldPath: null, header: [line], hunks: [], binary: false };
      files.push(file);
      hunk = null;
      minus = undefined;
      plus = undefined;
      renameFrom = null;
      renameTo = null;
      continue;
    }
    if (!file) continue;
    const h = HUNK.exec(line);
    if (h) {
      hunk = {
        header: line,
        oldStart: Number(h[1]),
        oldCount: h[2] === undefined ? 1 : Number(h[2]),
        newStart: Number(h[3]),
        newCount: h[4] === undefined ? 1 : Number(h[4]),
        section: h[5] ?? '',
        lines: [],
      };
      file.hunks.push(hunk);
      oldNo = hunk.oldStart;
      newNo = hunk.newStart;
      continue;
    }
    if (!hunk) {
      file.header.push(line);
      if (line.startsWith('--- ')) minus = sidePath(line.slice(4));
      else if (line.startsWith('+++ ')) plus = sidePath(line.slice(4));
      else if (line.startsWith('rename from ')) renameFrom = unquotePath(line.slice(12));
      else if (line.startsWith('rename to ')) renameTo = unquotePath(line.slice(10));
      else if (line.startsWith('Binary files ') && line.endsWith(' differ')) file.binary = true;
      continue;
    }
    const mark = line[0];
    const body = line.slice(1);
    if (mark === '+') hunk.lines.push({ kind: 'add', text: body, old: null, new: newNo++ });
    else if (mark === '-') hunk.lines.push({ kind: 'del', text: body, old: oldNo++, new: null });
    else if (mark === '\\') hunk.lines.push({ kind: 'note', text: line, old: null, new: null });
    else hunk.lines.push({ kind: 'context', text: body, old: oldNo++, new: newNo++ });
  }
  finish();
  return files;
}

/** The hunk of `file` holding line `line` of the new (or old) side, if any. */
export function hunkAt(
  file: DiffSection,
  line: number,
  side: 'new' | 'old' = 'new',
): { hunk: DiffHunk; index: number } | null {
  for (const hunk of file.hunks) {
    const index = hunk.lines.findIndex((l) => (side === 'new' ? l.new : l.old) === line);
    if (index >= 0) return { hunk, index };
  }
  return null;
}
