/**
 * Field bounds of SPEC §8, measured in bytes as the spec states them, with messages that name the
 * field and the limit (`title is over 1 KiB (1024 bytes)`).
 */
import { z } from 'zod';
import { controlProblem, fieldNameProblem, type TextKind } from './text.js';

export function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0)
    return `${bytes / (1024 * 1024)} MiB (${bytes} bytes)`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB (${bytes} bytes)`;
  return `${bytes} bytes`;
}

/** A string of at most `maxBytes`, refused when it holds control characters (decision 186). */
export function boundedString(field: string, maxBytes: number, kind: TextKind = 'text') {
  return z
    .string({ error: `${field} must be a string` })
    .refine(
      (s) => Buffer.byteLength(s, 'utf8') <= maxBytes,
      `${field} is over ${describeBytes(maxBytes)}`,
    )
    .superRefine((s, ctx) => {
      const problem = controlProblem(s, kind);
      if (problem) ctx.addIssue({ code: 'custom', message: `${field} ${problem}` });
    });
}

export const BOUNDS = {
  title: 1024,
  description: 64 * 1024,
  name: 512,
  branch: 512,
  prompt: 1024 * 1024,
  run_override: 16 * 1024,
  field_key: 256,
  answer_key: 64 * 1024,
  value: 64 * 1024,
  entries: 100,
  ops: 512,
} as const;

/**
 * Task `fields`: string values, bounded keys, values and entry count, names in the field-name
 * grammar (decision 186).
 */
export function boundedStringMap(field: string) {
  return z
    .record(z.string(), z.string({ error: `${field} values must be strings` }))
    .superRefine((m, ctx) => {
      const entries = Object.entries(m);
      if (entries.length > BOUNDS.entries) {
        ctx.addIssue({
          code: 'custom',
          message: `${field} has ${entries.length} entries, over the limit of ${BOUNDS.entries}`,
        });
      }
      for (const [k, v] of entries) {
        // A name outside the grammar is named by the map, not by a path built from the name.
        const nameProblem = fieldNameProblem(k);
        if (nameProblem) {
          ctx.addIssue({ code: 'custom', message: `${field}: ${nameProblem}` });
          continue;
        }
        const valueProblem = controlProblem(v, 'text');
        if (valueProblem) {
          ctx.addIssue({ code: 'custom', path: [k], message: `${field}.${k} ${valueProblem}` });
        }
        if (Buffer.byteLength(k) > BOUNDS.field_key) {
          ctx.addIssue({
            code: 'custom',
            path: [k],
            message: `${field} key is over ${describeBytes(BOUNDS.field_key)}`,
          });
        }
        if (Buffer.byteLength(v) > BOUNDS.value) {
          ctx.addIssue({
            code: 'custom',
            path: [k],
            message: `${field}.${k} is over ${describeBytes(BOUNDS.value)}`,
          });
        }
      }
    });
}
