/**
 * Turns zod issues into findings that name the offending key the way users write it
 * (`steps[2].lanes[0].workflow`, `defaults.agent_timeout`). Shared by config, request bodies
 * and workflow files so every refusal reads the same.
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

function issueFindings(issue: z.core.$ZodIssue, base: ReadonlyArray<PropertyKey>): Finding[] {
  const path = [...base, ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      // A key is the client's text: quoted back at most 200 bytes of it (decision 189).
      const full = clipText(formatPath([...path, key]));
      return { path: full, message: `unknown key "${full}"` };
    });
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    // A union whose branches all failed: report the branch that got furthest (most specific path).
    const branches = issue.errors.map((errs) => errs.flatMap((e) => issueFindings(e, path)));
    const best = branches.sort(
      (a, b) =>
        Math.max(0, ...b.map((f) => f.path.length)) - Math.max(0, ...a.map((f) => f.path.length)),
    )[0];
    if (best && best.length > 0 && best.some((f) => f.path.length > formatPath(path).length))
      return best;
  }
  const where = clipText(formatPath(path));
  const message =
    issue.message.startsWith(where) || where === '' ? issue.message : `${where}: ${issue.message}`;
  return [{ path: where, message }];
}

/** Findings for every issue, in the order zod reported them, de-duplicated. */
export function findingsFromZod(
  error: z.ZodError,
  base: ReadonlyArray<PropertyKey> = [],
): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const issue of error.issues) {
    for (const f of issueFindings(issue, base)) {
      const k = `${f.path}\0${f.message}`;
      if (!seen.has(k)) {
        seen.add(k);
        out.push(f);
      }
    }
  }
  return out;
}

export function summarizeFindings(findings: Finding[]): string {
  return findings.map((f) => f.message).join('; ');
}
