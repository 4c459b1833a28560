/** Small text helpers for human output. */

/** `1536` → `1.5 KiB`; binary units like the config's sizes. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(v >= 10 ? 0 : 1)} ${units[i]}`;
}

/** Left-aligned columns separated by two spaces; the first row is the header. */
export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** `1m05s` from two RFC 3339 timestamps (or since `from` when `to` is null). */
export function elapsed(from: string | null, to: string | null, now = Date.now()): string {
  if (!from) return '';
  const ms = Math.max(0, (to ? Date.parse(to) : now) - Date.parse(from));
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export function positiveId(raw: string | undefined, what: string): number {
  if (!raw || !/^[1-9]\d*$/.test(raw))
    throw new UsageError(`${what} must be a positive integer id${raw ? `, not ${raw}` : ''}`);
  return Number(raw);
}

/** A mistake in how the command was called (exit 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
