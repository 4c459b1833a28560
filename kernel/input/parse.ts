/** Request validation helpers: zod schemas are the single source of truth for bodies and queries. */
import type { z } from 'zod';
import { SvcError } from '../errors.js';
import { findingsFromZod, summarizeFindings } from './findings.js';

/** Parses `value` with `schema`, or throws 400 validation_failed naming the first failing field. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what = 'body',
): z.infer<S> {
  const r = schema.safeParse(value === undefined && what === 'body' ? {} : value);
  if (r.success) return r.data;
  const findings = findingsFromZod(r.error);
  const first = findings[0];
  throw new SvcError('validation_failed', summarizeFindings(findings) || `invalid ${what}`, {
    field: first?.path ?? '',
  });
}

/** A positive integer id from a path parameter, or null for anything else. */
export function idOrNull(raw: string | undefined): number | null {
  return raw && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : null;
}

/** A positive integer id from a path parameter; anything else is 404, as an unknown id would be. */
export function parseId(raw: string | undefined, what: string): number {
  const id = idOrNull(raw);
  if (id === null)
    throw new SvcError(
      'not_found',
      `${what} ${raw ?? ''} not found (${what} ids are positive integers)`,
    );
  return id;
}
