/**
 * `npm run bench`'s command line, read strictly: a full run takes a quarter of an hour, so a
 * mistyped flag or section name (`--onyl output`, `--only ouptut`) is refused at once, naming
 * it, instead of being ignored and running everything.
 */
import { parseArgs } from 'node:util';

export const SECTIONS = [
  'overhead',
  'cpu',
  'throughput',
  'admission',
  'api',
  'output',
  'footprint',
  'template',
] as const;

export type Section = (typeof SECTIONS)[number];

export const USAGE = `usage: npm run bench -- [--quick] [--only <sections>] [--json <file>] [--profile <file>]
                           [--output-size <steps>x<rounds>]

  --quick                 small sizes (a smoke run; figures not comparable)
  --only <sections>       comma-separated: ${SECTIONS.join(', ')}
  --json <file>           also write the raw samples
  --profile <file>        keep the daemon's CPU profile (cpu, api or output section)
  --output-size <S>x<R>   the output section's steps and rounds (e.g. 16x5, ~12 MB a step)
  --help                  this text

SVC_BENCH_BIN=<build>/bin/svc.js times another build's daemon. Exits 1 when a target is missed.`;

export interface BenchArgs {
  quick: boolean;
  /** null: every section. */
  only: ReadonlySet<Section> | null;
  json?: string;
  profile?: string;
  /** Steps and rounds of the output section, when given. */
  outputSize?: { steps: number; rounds: number };
  help: boolean;
}

/** The bench's arguments, or an error naming what is wrong with them. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs | { error: string } {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (err) {
    return { error: (err as Error).message };
  }
  const out: BenchArgs = { quick: values.quick === true, only: null, help: values.help === true };
  if (values.only !== undefined) {
    const names = values.only
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
    const known = `(sections: ${SECTIONS.join(', ')})`;
    if (names.length === 0) return { error: `--only needs a section ${known}` };
    if (unknown.length > 0)
      return { error: `--only names an unknown section: ${unknown.join(', ')} ${known}` };
    out.only = new Set(names as Section[]);
  }
  if (values.json !== undefined) out.json = values.json;
  if (values.profile !== undefined) out.profile = values.profile;
  if (values['output-size'] !== undefined) {
    const m = /^([1-9]\d{0,2})x([1-9]\d{0,2})$/.exec(values['output-size']);
    if (!m)
      return {
        error: `--output-size must be <steps>x<rounds>, each 1 to 999 (got ${values['output-size']})`,
      };
    out.outputSize = { steps: Number(m[1]), rounds: Number(m[2]) };
  }
  return out;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      quick: { type: 'boolean' },
      only: { type: 'string' },
      json: { type: 'string' },
      profile: { type: 'string' },
      'output-size': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
