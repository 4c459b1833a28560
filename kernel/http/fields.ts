/**
 * Field bounds of SPEC §8, measured in bytes as the spec states them, with messages that name the
 * field and the limit (`title is over 1 KiB (1024 bytes)`).
 */
import { z } from 'zod';

export function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0)
    return `${bytes / (1024 * 1024)} MiB (${bytes} bytes)`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB (${bytes} bytes)`;
  return `${bytes} bytes`;
}

export function boundedString(field: string, maxBytes: number) {
  return z
    .string({ error: `${field} must be a string` })
    .refine(
      (s) => Buffer.byteLength(s, 'utf8') <= maxBytes,
      `${field} is over ${describeBytes(maxBytes)}`,
    );
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

/** An object of string values with bounded keys, values and entry count (task `fields`). */
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
