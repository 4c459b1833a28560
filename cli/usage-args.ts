/**
 * How many positional arguments a command takes, read from its usage line — the line `--help`
 * prints and docs/cli.md shows — so the count can never disagree with what the user is told.
 * Options and their values (`--run <id>`, `[--answer "<q>=<v>" ...]`, `(--title <t> | …)`,
 * `[options]`) are not positionals; `<id>` is, `[path]` and `[<id|name>]` are optional ones, and
 * `<file|dir>...` or `<message…>` take any number.
 */

/** The most positionals the usage allows (Infinity when one repeats). */
export function maxPositionals(usage: string, name: string): number {
  const rest = usage.replace(/\s+/g, ' ').trim();
  const head = `svc ${name}`;
  const tail = rest.startsWith(head) ? rest.slice(head.length) : rest;
  let count = 0;
  for (const unit of topLevelUnits(tail)) {
    if (unit.startsWith('-') || unit === '[options]') continue;
    const inner = unit.startsWith('[') ? unit.slice(1, -1).trim() : unit;
    // A bracketed group that starts with an option is an option, whatever follows inside it.
    if (inner.startsWith('-') || inner.startsWith('(')) continue;
    if (/(\.\.\.|\u2026)>?\]?$/.test(unit)) return Number.POSITIVE_INFINITY;
    count++;
  }
  return count;
}

/**
 * The usage split at its top level: a bracketed or parenthesized group is one unit, an option's
 * value (`--run <id>`) is folded into its option, and a `...` standing alone joins the unit before.
 */
function topLevelUnits(text: string): string[] {
  const units: string[] = [];
  let depth = 0;
  let current = '';
  const flush = () => {
    const u = current.trim();
    current = '';
    if (u === '') return;
    const last = units.length - 1;
    const prev = units[last];
    if (prev !== undefined && (u === '...' || u === '\u2026')) units[last] = `${prev}${u}`;
    else if (prev?.startsWith('-') && !prev.includes(' ') && u.startsWith('<'))
      units[last] = `${prev} ${u}`;
    else units.push(u);
  };
  for (const ch of text) {
    // `<run id>` is one placeholder, as `[--fix [--force]]` is one group.
    if (ch === '[' || ch === '(' || ch === '<') depth++;
    if (ch === ']' || ch === ')' || ch === '>') depth--;
    if (ch === ' ' && depth === 0) flush();
    else current += ch;
  }
  flush();
  return units;
}
