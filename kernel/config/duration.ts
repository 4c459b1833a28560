/**
 * Durations as users write them (`45m`, `1h30m`, `90s`, `250ms`, `0`), the Go-compatible subset
 * workflow files from the earlier system use. Strings stay strings on the wire; this turns them
 * into milliseconds where time is measured.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|h|m|s|d)/y;

/** Milliseconds for a duration string, or `null` when it is not one. */
export function tryParseDuration(text: string): number | null {
  const s = text.trim();
  if (s === '0') return 0;
  if (s === '') return null;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const at = PART.lastIndex;
    const m = PART.exec(s);
    if (!m || m.index !== at) return null;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] ?? 0);
  }
  return Number.isFinite(total) ? Math.round(total) : null;
}

export function parseDuration(text: string): number {
  const ms = tryParseDuration(text);
  if (ms === null)
    throw new Error(`not a duration: ${JSON.stringify(text)} (use forms like 45m, 1h30m, 90s)`);
  return ms;
}

/** The shortest canonical spelling of a millisecond count (`5400000` → `1h30m`). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let left = ms;
  let out = '';
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ] as const) {
    const n = Math.floor(left / size);
    if (n > 0) {
      out += `${n}${unit}`;
      left -= n * size;
    }
  }
  return out;
}
