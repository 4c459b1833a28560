/** Human sizes with binary suffixes (`512MB` is 512 × 2^20 bytes), as `transcript_max_bytes` takes them. */
const UNITS: Record<string, number> = {
  B: 1,
  KB: 1024,
  KIB: 1024,
  MB: 1024 ** 2,
  MIB: 1024 ** 2,
  GB: 1024 ** 3,
  GIB: 1024 ** 3,
  TB: 1024 ** 4,
  TIB: 1024 ** 4,
};

export function tryParseSize(value: string | number): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/.exec(value);
  if (!m) return null;
  const unit = (m[2] ?? '').toUpperCase() || 'B';
  const mult = UNITS[unit];
  if (mult === undefined) return null;
  const bytes = Math.floor(Number(m[1]) * mult);
  return Number.isSafeInteger(bytes) ? bytes : null;
}
