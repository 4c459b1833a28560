/**
 * The configuration reference (docs/configuration.md), generated from the schema so the two
 * cannot drift: a test regenerates it and fails when the committed file differs.
 */
import type { z } from 'zod';
import { ConfigSchema, defaultConfig, KEYS_OMITTED_FROM_TEMPLATE } from './schema.js';
import { objectShape, unwrapSchema } from './template.js';

function typeOf(schema: z.ZodType): string {
  const inner = unwrapSchema(schema);
  const def = inner._zod.def as {
    type: string;
    entries?: Record<string, string>;
    options?: z.ZodType[];
    element?: z.ZodType;
  };
  switch (def.type) {
    case 'enum':
      return Object.values(def.entries ?? {})
        .map((v) => `\`${v}\``)
        .join(' \\| ');
    case 'union':
      return (def.options ?? []).map(typeOf).join(' or ');
    case 'array':
      return `list of ${def.element ? typeOf(def.element) : 'values'}`;
    case 'record':
      return 'map';
    default:
      return def.type;
  }
}

function show(value: unknown): string {
  if (typeof value === 'string') return value === '' ? '`""`' : `\`${value}\``;
  return `\`${JSON.stringify(value)}\``;
}

function rows(schema: z.ZodType, value: unknown, prefix: string[]): string[] {
  const shape = objectShape(schema);
  const out: string[] = [];
  for (const [key, s] of Object.entries(shape ?? {})) {
    const path = [...prefix, key];
    const v = (value as Record<string, unknown>)?.[key];
    const child = objectShape(s);
    if (child && v && typeof v === 'object' && !Array.isArray(v)) {
      out.push(...rows(s, v, path));
      continue;
    }
    const note = KEYS_OMITTED_FROM_TEMPLATE.has(path.join('.'))
      ? ' Not written into the generated file.'
      : '';
    out.push(
      `| \`${path.join('.')}\` | ${typeOf(s)} | ${show(v)} | ${(s.description ?? '').replace(/\|/g, '\\|')}${note} |`,
    );
  }
  return out;
}

export function configReference(): string {
  return [
    '# Configuration reference',
    '',
    '<!-- Generated from kernel/config/schema.ts by `npm run docs`; a test fails when it drifts. -->',
    '',
    'svc reads `{config_dir}/config.yaml` (`$SVC_CONFIG_DIR`, else `$XDG_CONFIG_HOME/svc`, else',
    '`~/.config/svc`). The first start writes the file with every key, its default and a comment.',
    'Edits apply as soon as the file is saved; an invalid edit is rejected and logged and the last',
    'good configuration stays; `listen` needs a restart; unknown keys are rejected by name; omitted',
    'keys keep their defaults. `GET /v1/config` serves the configuration in force and',
    '`PATCH /v1/config` (or `svc config set <key> <value>`) edits it, keeping the file’s comments and',
    'key order; `null` in a PATCH body removes a key so it returns to its default.',
    'An empty file is invalid after the first start (write `{}` for all defaults), and a file over',
    '1 MiB, nesting past 32 levels or expanding too many YAML aliases is refused like any invalid',
    'edit (decision 187).',
    '',
    'Durations are written like `45m`, `1h30m`, `90s`; sizes like `512MB` (binary units).',
    '',
    '| key | type | default | meaning |',
    '|---|---|---|---|',
    ...rows(ConfigSchema, defaultConfig(), []),
    '',
  ].join('\n');
}
