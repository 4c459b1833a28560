/**
 * Recognizing a full disk in whatever shape it reaches us: a Node errno (`ENOSPC` on a write,
 * `EDQUOT` past a quota), SQLite's `SQLITE_FULL` (better-sqlite3 puts it on `code`), or the text of
 * a child's error (git and tar print "No space left on device"). One test for every write path,
 * so each can turn the fault into the same refusal (decision 180).
 */

const CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
const TEXT = /no space left on device|disk quota exceeded|database or disk is full/i;

/** The code naming a full disk in `err` (or its `cause`), or null when it is some other fault. */
export function diskFullCode(err: unknown, depth = 0): string | null {
  if (err === null || err === undefined || depth > 4) return null;
  if (typeof err === 'string') return textCode(err);
  if (typeof err !== 'object') return null;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && CODES.has(code)) return code;
  // Our own refusal, already translated (SvcError `disk_full` keeps the file system's code).
  if (code === 'disk_full') {
    const inner = (err as { details?: { code?: unknown } }).details?.code;
    return typeof inner === 'string' ? inner : 'ENOSPC';
  }
  // A system or SQLite error names its own fault; only uncoded errors (a child's text) are read.
  if (typeof code === 'string' && /^(E[A-Z0-9]+|SQLITE_[A-Z_]+)$/.test(code)) return null;
  const message = (err as { message?: unknown }).message;
  const fromText = typeof message === 'string' ? textCode(message) : null;
  return fromText ?? diskFullCode((err as { cause?: unknown }).cause, depth + 1);
}

function textCode(text: string): string | null {
  if (!TEXT.test(text)) return null;
  return /quota/i.test(text) ? 'EDQUOT' : 'ENOSPC';
}

/** True when `err` says a write found no room. */
export function isDiskFull(err: unknown): boolean {
  return diskFullCode(err) !== null;
}
