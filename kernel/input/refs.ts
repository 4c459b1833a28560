/**
 * Request fields that name a branch or a path (decision 189): judged in the schema, so a bad one
 * is 400 naming the field before any git process or file system call sees it (a NUL there used
 * to surface as a 500 from the spawn or the `stat`).
 */
import { z } from 'zod';
import { clipInput } from '../../lib/clip.js';
import { branchNameProblem } from '../git/index.js';
import { describeBytes } from './bounds.js';
import { controlProblem } from './text.js';

export const BRANCH_BYTES = 512;
/** Linux's PATH_MAX and NAME_MAX: a longer path or name is refused here, not by the kernel later. */
export const PATH_BYTES = 4096;
export const PATH_NAME_BYTES = 255;

/**
 * A branch name, checked after trimming (as it is used). `optionalEmpty`: an empty string means
 * "not given" (a task's `branch_name` then comes from the branch template).
 */
export function branchField(field: string, opts: { optionalEmpty?: boolean } = {}) {
  return z.string({ error: `${field} must be a string` }).superRefine((raw, ctx) => {
    if (Buffer.byteLength(raw) > BRANCH_BYTES) {
      ctx.addIssue({ code: 'custom', message: `${field} is over ${describeBytes(BRANCH_BYTES)}` });
      return;
    }
    const name = raw.trim();
    if (name === '' && opts.optionalEmpty) return;
    const problem = branchNameProblem(name);
    if (problem)
      ctx.addIssue({
        code: 'custom',
        message: `${field} ${clipInput(name)} is not a valid branch name: it ${problem}`,
      });
  });
}

/** Why `path` is not acceptable as a path a client sends, or null. */
export function pathProblem(path: string): string | null {
  if (path === '') return 'must not be empty';
  const control = controlProblem(path, 'line');
  if (control) return control;
  const bytes = Buffer.byteLength(path);
  if (bytes > PATH_BYTES) return `is over ${describeBytes(PATH_BYTES)}`;
  for (const name of path.split('/'))
    if (Buffer.byteLength(name) > PATH_NAME_BYTES)
      return `has a name over ${PATH_NAME_BYTES} bytes (${clipInput(name, 40)})`;
  return null;
}

export function pathField(field: string, required = `${field} is required`) {
  return z.string({ error: required }).superRefine((path, ctx) => {
    const problem = pathProblem(path);
    if (problem) ctx.addIssue({ code: 'custom', message: `${field} ${problem}` });
  });
}
