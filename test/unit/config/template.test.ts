import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { z } from 'zod';
import { ConfigSchema, defaultConfig } from '../../../kernel/config/schema.js';
import { configTemplate, objectShape } from '../../../kernel/config/template.js';

function leafPaths(schema: z.ZodType, prefix: string[] = []): string[] {
  const shape = objectShape(schema);
  if (!shape) return [prefix.join('.')];
  return Object.entries(shape).flatMap(([k, s]) => leafPaths(s, [...prefix, k]));
}

describe('first-start config.yaml', () => {
  const text = configTemplate();

  it('parses back to exactly the defaults', () => {
    const parsed = ConfigSchema.parse(parse(text));
    expect(parsed).toEqual(defaultConfig());
  });

  it('shows every key except max_parallel_chats', () => {
    const doc = parse(text) as Record<string, unknown>;
    const get = (path: string) =>
      path
        .split('.')
        .reduce<unknown>(
          (o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined),
          doc,
        );
    for (const path of leafPaths(ConfigSchema)) {
      if (path === 'max_parallel_chats') expect(get(path)).toBeUndefined();
      else expect(get(path), path).not.toBeUndefined();
    }
  });

  it('explains keys with comments', () => {
    expect(text).toMatch(/# Tasks that may hold a slot/);
    expect(text.split('\n').filter((l) => l.trim().startsWith('#')).length).toBeGreaterThan(40);
  });
});
