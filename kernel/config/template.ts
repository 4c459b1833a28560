/**
 * The commented config.yaml written on first start, generated from the schema so it always shows
 * every key with its default and its description (a test checks it parses back to exactly the
 * defaults). `max_parallel_chats` is left out as SPEC §2.10 says.
 */
import { stringify } from 'yaml';
import type { z } from 'zod';
import { ConfigSchema, defaultConfig, KEYS_OMITTED_FROM_TEMPLATE } from './schema.js';

type AnySchema = z.ZodType;

/** Looks through default/prefault/optional/pipe wrappers to the schema that holds the shape. */
export function unwrapSchema(schema: AnySchema): AnySchema {
  let s: AnySchema = schema;
  for (let i = 0; i < 10; i++) {
    const def = s._zod.def as { type: string; innerType?: AnySchema; in?: AnySchema };
    if (
      (def.type === 'default' || def.type === 'prefault' || def.type === 'optional') &&
      def.innerType
    ) {
      s = def.innerType;
    } else if (def.type === 'pipe' && def.in) {
      s = def.in;
    } else break;
  }
  return s;
}

export function objectShape(schema: AnySchema): Record<string, AnySchema> | null {
  const inner = unwrapSchema(schema);
  const def = inner._zod.def as { type: string; shape?: Record<string, AnySchema> };
  return def.type === 'object' && def.shape ? def.shape : null;
}

function scalar(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[${value.map(scalar).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return Object.keys(value).length === 0
      ? '{}'
      : stringify(value, { collectionStyle: 'flow' }).trim();
  if (typeof value === 'string') {
    const plain = stringify(value).trim();
    return value === '' ? '""' : plain;
  }
  return String(value);
}

function comment(text: string | undefined, indent: string): string[] {
  if (!text) return [];
  const words = text.split(/\s+/);
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    if (line && line.length + w.length + 1 > 92 - indent.length) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines.map((l) => `${indent}# ${l}`);
}

function render(
  shape: Record<string, AnySchema>,
  value: Record<string, unknown>,
  depth: number,
): string[] {
  const indent = '  '.repeat(depth);
  const out: string[] = [];
  for (const [key, schema] of Object.entries(shape)) {
    if (depth === 0 && KEYS_OMITTED_FROM_TEMPLATE.has(key)) continue;
    const v = value[key];
    const childShape = objectShape(schema);
    if (depth === 0 && out.length > 0) out.push('');
    out.push(...comment(schema.description, indent));
    if (childShape && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      out.push(`${indent}${key}:`);
      out.push(...render(childShape, v as Record<string, unknown>, depth + 1));
    } else {
      out.push(`${indent}${key}: ${scalar(v)}`);
    }
  }
  return out;
}

export function configTemplate(): string {
  const header = [
    '# svc configuration. Generated with every default; edit freely.',
    '# Changes are applied as soon as the file is saved; an invalid edit is rejected and logged,',
    '# and the last good configuration stays in force. A change of `listen` needs a restart.',
    '',
  ];
  const shape = objectShape(ConfigSchema) ?? {};
  const body = render(shape, defaultConfig() as unknown as Record<string, unknown>, 0);
  return `${[...header, ...body].join('\n')}\n`;
}
