/**
 * Turns zod issues into findings that name the offending key the way users write it
 * (`steps[2].lanes[0].workflow`, `defaults.agent_timeout`). Shared by request bodies, config,
 * workflow and trigger files so every refusal reads the same and carries the same codes.
 */
import type { z } from 'zod';
import { clipText } from '../../lib/clip.js';

export interface Finding {
  path: string;
  message: string;
  /** 1-based source line, when the finding is about a file and the line could be located. */
  line?: number;
  /** A stable snake_case id of the rule that failed; tests and clients match on it, not on prose. */
  code?: string;
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

/** A value's member at `path`, or undefined when the path leaves the value. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return cur;
}

/**
 * The stable code of one zod issue (decision 226): a custom issue's own `params.code`, `empty`
 * for a list that must hold at least one item, `out_of_range` for other bounds, else zod's
 * format, value or type family.
 */
export function issueCode(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'custom': {
      const code = (issue.params as { code?: unknown } | undefined)?.code;
      return typeof code === 'string' ? code : 'invalid';
    }
    case 'too_small':
      return issue.origin === 'array' && Number(issue.minimum) === 1 ? 'empty' : 'out_of_range';
    case 'too_big':
      return 'out_of_range';
    case 'invalid_format':
    case 'invalid_value':
      return issue.code;
    default:
      return 'invalid_type';
  }
}

/** One zod issue read for a person: where (as a path), which rule, and what to say. */
export interface IssueFinding {
  path: readonly PropertyKey[];
  code: string;
  message: string;
}

export interface IssueReading {
  /** Where the parsed value sits in its file or body (`['steps', 2]`). */
  base?: readonly PropertyKey[];
  /**
   * The value that was parsed. Given, a key it lacks reads "<path> is required" (`required`);
   * absent, zod's own message stands.
   */
  value?: unknown;
  /** How a path is written in messages (default `formatPath`: `steps[2].run`). */
  format?: (path: readonly PropertyKey[]) => string;
  /** A room's own reading of an unknown key (a step key that belongs to another step type). */
  unknownKey?: (path: readonly PropertyKey[], key: string) => IssueFinding | null;
}

/**
 * The one translation of zod issues into findings, shared by request bodies, config, workflow
 * and trigger files (issue 21: it existed three times and had drifted). An unknown key is named
 * whole; a union whose branches all failed reports the branch that got furthest; a record key
 * refused by its own schema reports that schema's reason; a missing key is `required` when the
 * value is known. Paths in messages are cut to 200 bytes (decision 189). In zod's order,
 * de-duplicated.
 */
export function readIssues(
  issues: readonly z.core.$ZodIssue[],
  reading: IssueReading = {},
): IssueFinding[] {
  const format = reading.format ?? formatPath;
  const hasValue = 'value' in reading;
  const out: IssueFinding[] = [];
  const seen = new Set<string>();
  const add = (f: IssueFinding) => {
    const k = `${format(f.path)}\0${f.message}`;
    if (!seen.has(k)) {
      seen.add(k);
      out.push(f);
    }
  };
  const walk = (
    list: readonly z.core.$ZodIssue[],
    base: readonly PropertyKey[],
    value: unknown,
  ) => {
    for (const issue of list) {
      const rel = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      const path = [...base, ...rel];
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          const own = reading.unknownKey?.(path, key) ?? null;
          // A key is the client's text: quoted back at most 200 bytes of it (decision 189).
          const full = clipText(format([...path, key]));
          add(
            own ?? { path: [...path, key], code: 'unknown_key', message: `unknown key "${full}"` },
          );
        }
        continue;
      }
      if (issue.code === 'invalid_union' && issue.errors.length > 0) {
        // Every branch failed: report the branch that got furthest (its issues' longest path).
        const best = [...issue.errors].sort(
          (a, b) =>
            Math.max(0, ...b.map((e) => e.path.length)) -
            Math.max(0, ...a.map((e) => e.path.length)),
        )[0];
        if (best?.some((e) => e.path.length > 0)) {
          walk(best, path, hasValue ? valueAt(value, rel) : undefined);
          continue;
        }
      }
      const where = clipText(format(path));
      if ((issue.code === 'invalid_key' || issue.code === 'invalid_element') && issue.issues[0]) {
        // A record key (or map element) refused by its own schema: that schema's reason.
        const inner = issue.issues[0];
        const what = issue.code === 'invalid_key' ? 'key ' : '';
        add({ path, code: issueCode(inner), message: `${where}: ${what}${inner.message}` });
        continue;
      }
      if (
        hasValue &&
        (issue.code === 'invalid_type' || issue.code === 'invalid_union') &&
        valueAt(value, rel) === undefined
      ) {
        const key = rel.length > 0 ? String(rel[rel.length - 1]) : where;
        add({ path, code: 'required', message: `${where || key} is required` });
        continue;
      }
      const message =
        issue.message.startsWith(where) || where === ''
          ? issue.message
          : `${where}: ${issue.message}`;
      add({ path, code: issueCode(issue), message });
    }
  };
  walk(issues, reading.base ?? [], reading.value);
  return out;
}

/** Findings for every issue of a body, query or config value, in zod's order, de-duplicated. */
export function findingsFromZod(
  error: z.ZodError,
  base: ReadonlyArray<PropertyKey> = [],
): Finding[] {
  return readIssues(error.issues, { base }).map((f) => ({
    path: clipText(formatPath(f.path)),
    message: f.message,
    code: f.code,
  }));
}

export function summarizeFindings(findings: Finding[]): string {
  return findings.map((f) => f.message).join('; ');
}
