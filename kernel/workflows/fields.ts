/**
 * Task-input declarations (SPEC §2.8 `fields[]`): the load-time rules of a declaration, and
 * `validateTaskFields`, the pure function task creation calls with the values a client sent. Values
 * are strings on the wire and stay strings; a type only says which strings are acceptable.
 */
import { z } from 'zod';
import type { Finding } from '../input/index.js';
import { SLUG_PATTERN } from '../plugin/index.js';

export const FIELD_TYPES = ['string', 'integer', 'number', 'boolean', 'enum'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

const scalar = z.union([z.string(), z.number(), z.boolean()], {
  error: 'must be a string, number or boolean',
});

export const FieldDeclSchema = z.strictObject({
  name: z
    .string({ error: 'name is required and must be a string' })
    .regex(
      SLUG_PATTERN,
      'name must be a slug: lowercase letters, digits, "-", "_" or ".", starting with a letter or digit',
    ),
  label: z.string({ error: 'must be a string' }).optional(),
  description: z.string({ error: 'must be a string' }).optional(),
  type: z.enum(FIELD_TYPES, { error: `must be one of ${FIELD_TYPES.join(', ')}` }).optional(),
  required: z.boolean({ error: 'must be true or false' }).optional(),
  pattern: z.string({ error: 'must be a string (a regular expression)' }).optional(),
  values: z.array(scalar, { error: 'must be a list of values' }).optional(),
  multiple: z.boolean({ error: 'must be true or false' }).optional(),
  default: z.union([scalar, z.array(scalar)], { error: 'must be a value or a list' }).optional(),
});

type AuthoredField = z.infer<typeof FieldDeclSchema>;

/**
 * A declaration as the engine and clients read it: every default filled in, values and default as
 * the strings they are stored as (a multiple enum's default normalized to `a,b`).
 */
export interface FieldDecl {
  name: string;
  label: string;
  description?: string;
  type: FieldType;
  required: boolean;
  pattern?: string;
  values?: string[];
  multiple: boolean;
  default?: string;
}

/** One problem in a declaration, relative to the entry (`['values', 2]`). */
interface DeclProblem {
  path: Array<string | number>;
  code: string;
  message: string;
}

function asString(v: string | number | boolean): string {
  return typeof v === 'string' ? v : String(v);
}

/** The JS regular expression for a `pattern`, or the reason it is not one. */
export function compilePattern(pattern: string): RegExp | string {
  try {
    return new RegExp(pattern, 'u');
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Checks one authored declaration (already through the schema) and returns its normalized form
 * with the problems found. The default is checked with the same rules task creation applies.
 */
export function checkFieldDecl(field: AuthoredField): { decl: FieldDecl; problems: DeclProblem[] } {
  const problems: DeclProblem[] = [];
  const type: FieldType = field.type ?? 'string';
  const decl: FieldDecl = {
    name: field.name,
    label: field.label ?? field.name,
    type,
    required: field.required ?? false,
    multiple: field.multiple ?? false,
  };
  if (field.description !== undefined) decl.description = field.description;

  if (field.pattern !== undefined) {
    if (type === 'enum') {
      problems.push({
        path: ['pattern'],
        code: 'pattern_with_enum',
        message: 'pattern and enum values are mutually exclusive',
      });
    } else if (type !== 'string') {
      problems.push({
        path: ['pattern'],
        code: 'pattern_not_string',
        message: `pattern is only for type string, not ${type}`,
      });
    } else {
      const re = compilePattern(field.pattern);
      if (typeof re === 'string')
        problems.push({
          path: ['pattern'],
          code: 'invalid_pattern',
          message: `pattern is not a valid regular expression: ${re}`,
        });
      else decl.pattern = field.pattern;
    }
  }

  if (type === 'enum') {
    if (field.values === undefined) {
      problems.push({
        path: ['values'],
        code: 'values_required',
        message: 'an enum field needs values',
      });
    } else if (field.values.length === 0) {
      problems.push({ path: ['values'], code: 'empty', message: 'values must not be empty' });
    } else {
      const seen = new Set<string>();
      field.values.forEach((raw, i) => {
        const v = asString(raw);
        if (v.trim() === '')
          problems.push({
            path: ['values', i],
            code: 'empty',
            message: 'a value must not be empty',
          });
        else if (v.includes(','))
          problems.push({
            path: ['values', i],
            code: 'comma_in_value',
            message: `value ${JSON.stringify(v)} contains a comma (multiple values are joined with commas)`,
          });
        else if (seen.has(v))
          problems.push({
            path: ['values', i],
            code: 'duplicate_value',
            message: `value ${JSON.stringify(v)} is listed twice`,
          });
        seen.add(v);
      });
      decl.values = field.values.map(asString);
    }
  } else if (field.values !== undefined) {
    problems.push({
      path: ['values'],
      code: 'values_not_enum',
      message: `values are only for type enum, not ${type}`,
    });
  }

  if (field.multiple === true && type !== 'enum') {
    problems.push({
      path: ['multiple'],
      code: 'multiple_not_enum',
      message: `multiple is only for type enum, not ${type}`,
    });
  }

  if (field.default !== undefined && problems.length === 0) {
    const raw = field.default;
    if (Array.isArray(raw) && !(type === 'enum' && decl.multiple)) {
      problems.push({
        path: ['default'],
        code: 'invalid_default',
        message: 'a list default is only for a multiple enum',
      });
    } else {
      const text = Array.isArray(raw) ? raw.map(asString).join(',') : asString(raw);
      const checked = checkFieldValue(decl, text);
      if (!checked.ok)
        problems.push({
          path: ['default'],
          code: 'invalid_default',
          message: `default ${checked.message}`,
        });
      else if (checked.value !== '') decl.default = checked.value;
    }
  }
  return { decl, problems };
}

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * One value against its declaration, ignoring presence (`validateTaskFields` decides that).
 * Returns the stored value (normalized for a multiple enum) or why it is refused.
 */
export function checkFieldValue(
  decl: FieldDecl,
  value: string,
): { ok: true; value: string } | { ok: false; message: string } {
  switch (decl.type) {
    case 'integer': {
      if (!INTEGER.test(value) || BigInt(value) < INT64_MIN || BigInt(value) > INT64_MAX)
        return {
          ok: false,
          message: `must be a base-10 whole number (got ${JSON.stringify(value)})`,
        };
      return { ok: true, value };
    }
    case 'number': {
      if (!NUMBER.test(value) || !Number.isFinite(Number(value)))
        return {
          ok: false,
          message: `must be a finite decimal number (got ${JSON.stringify(value)})`,
        };
      return { ok: true, value };
    }
    case 'boolean':
      if (value !== 'true' && value !== 'false')
        return { ok: false, message: `must be true or false (got ${JSON.stringify(value)})` };
      return { ok: true, value };
    case 'enum': {
      const values = decl.values ?? [];
      if (!decl.multiple) {
        if (!values.includes(value))
          return {
            ok: false,
            message: `must be one of ${values.join(', ')} (got ${JSON.stringify(value)})`,
          };
        return { ok: true, value };
      }
      const items = new Set<string>();
      for (const part of value.split(',')) {
        const item = part.trim();
        if (item === '') continue;
        if (!values.includes(item))
          return {
            ok: false,
            message: `has ${JSON.stringify(item)}, which is not one of ${values.join(', ')}`,
          };
        items.add(item);
      }
      return { ok: true, value: values.filter((v) => items.has(v)).join(',') };
    }
    default: {
      if (decl.pattern !== undefined) {
        const re = compilePattern(decl.pattern);
        if (typeof re !== 'string' && !re.test(value))
          return { ok: false, message: `must match pattern ${JSON.stringify(decl.pattern)}` };
      }
      return { ok: true, value };
    }
  }
}

export type TaskFieldsResult =
  | { ok: true; fields: Record<string, string>; defaulted: string[] }
  | { ok: false; errors: Finding[] };

function isBlank(v: string | undefined): boolean {
  return v === undefined || v.trim() === '';
}

/**
 * The four rules of SPEC §2.8 "Rules for fields at task creation", for the values a client sent:
 *
 * 1. An optional field absent or empty (blank) skips the type and pattern checks.
 * 2. A multiple enum is normalized: split on `,`, trimmed, empties dropped, deduplicated,
 *    reordered to declared order, rejoined with `,`. A refusal names the failing element.
 * 3. A required field's `default` is substituted for an omitted key and named in `defaulted`;
 *    an optional field's default never is, and a key sent empty is never defaulted.
 * 4. Only declared names are checked; other keys pass through untouched.
 *
 * Pure: no I/O, inputs untouched. Errors are findings at `fields.<name>`, in declaration order.
 */
export function validateTaskFields(
  declarations: readonly FieldDecl[],
  fields: Readonly<Record<string, string>>,
): TaskFieldsResult {
  const out: Record<string, string> = { ...fields };
  const defaulted: string[] = [];
  const errors: Finding[] = [];
  for (const decl of declarations) {
    const path = `fields.${decl.name}`;
    const present = Object.hasOwn(fields, decl.name);
    let value = present ? fields[decl.name] : undefined;
    if (!present && decl.required && decl.default !== undefined) {
      value = decl.default;
      out[decl.name] = value;
      defaulted.push(decl.name);
    }
    if (isBlank(value)) {
      if (decl.required) {
        errors.push({
          path,
          code: 'required',
          message: `field "${decl.name}" is required`,
        });
      }
      continue;
    }
    const checked = checkFieldValue(decl, value as string);
    if (!checked.ok) {
      errors.push({
        path,
        code: 'invalid_field',
        message: `field "${decl.name}" ${checked.message}`,
      });
      continue;
    }
    if (checked.value === '' && decl.required) {
      // A multiple enum of only commas and blanks normalizes to nothing: still missing.
      errors.push({ path, code: 'required', message: `field "${decl.name}" is required` });
      continue;
    }
    out[decl.name] = checked.value;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, fields: out, defaulted };
}
