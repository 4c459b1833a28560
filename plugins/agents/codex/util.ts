// Small JSON and text helpers. Each agent plugin keeps its own copy: a plugin folder imports only
// the kernel's plugin door, never a sibling plugin (one folder = one contribution).

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

/** `major.minor.patch` of the first semver-looking token, or undefined. */
export function semver(version: string | null | undefined): [number, number, number] | undefined {
  const m = version ? /(\d+)\.(\d+)\.(\d+)/.exec(version) : null;
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

export function tail(text: string, max = 2000): string {
  const t = text.trim();
  return t.length <= max ? t : t.slice(t.length - max);
}
