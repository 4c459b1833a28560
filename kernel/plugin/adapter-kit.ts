/**
 * The adapter kit: small JSON, text and version helpers every agent adapter's stream parser and
 * probe need. They live behind the plugin door so an adapter folder imports only the kernel's
 * plugin API, never a sibling plugin, and the three built-in adapters share one copy.
 */

export type Json = Record<string, unknown>;

export function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Parses one stdout line as a JSON object; anything else is undefined (never throws). */
export function parseLine(line: string): Json | undefined {
  const t = line.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Collapses whitespace and caps at `max` characters (code points, not UTF-16 units). */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
}

/** Argument names that give a tool call its one-line subject, most telling first. */
const SUBJECT_KEYS = [
  'command',
  'cmd',
  'file_path',
  'notebook_path',
  'pattern',
  'path',
  'url',
  'query',
  'prompt',
  'description',
] as const;

export function toolSummary(input: unknown): string | undefined {
  if (!isRecord(input)) return undefined;
  for (const key of SUBJECT_KEYS) {
    const v = input[key];
    if (typeof v === 'string' && v.trim() !== '') return oneLine(v, 200);
    if (Array.isArray(v) && v.every((x) => typeof x === 'string') && v.length > 0) {
      return oneLine(v.join(' '), 200);
    }
  }
  return undefined;
}

/** `major.minor.patch` of the first semver-looking token, or undefined. */
export function semver(version: string | null | undefined): [number, number, number] | undefined {
  const m = version ? /(\d+)\.(\d+)\.(\d+)/.exec(version) : null;
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

export function compareSemver(a: [number, number, number], b: [number, number, number]): number {
  for (let i = 0; i < 3; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** True when `version` parses and lies in `[min, below)`. */
export function inWindow(version: string | null, min: string, below: string): boolean {
  const v = semver(version);
  const lo = semver(min);
  const hi = semver(below);
  if (!v || !lo || !hi) return false;
  return compareSemver(v, lo) >= 0 && compareSemver(v, hi) < 0;
}

const MAX_RESET_AHEAD_MS = 7 * 24 * 3600 * 1000;

/** A reset the CLI named is kept only when it is in the future and at most 7 days out. */
export function plausibleReset(epochSeconds: number | undefined, now: Date): string | null {
  if (epochSeconds === undefined) return null;
  const ms = epochSeconds * 1000;
  if (ms <= now.getTime() || ms - now.getTime() > MAX_RESET_AHEAD_MS) return null;
  return new Date(ms).toISOString();
}

export function tail(text: string, max = 2000): string {
  const t = text.trim();
  return t.length <= max ? t : t.slice(t.length - max);
}
