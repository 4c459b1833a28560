/**
 * The bodies and queries of the review routes (issue 16): `GET /v1/tasks/{id}/diff` and
 * `POST /v1/tasks/{id}/review`. zod is the single source of truth; the MCP tools `tasks_diff` and
 * `tasks_review` are built from the same schemas (decision 121).
 */
import { z } from 'zod';
import { BOUNDS, boundedString, describeBytes } from '../input/index.js';

/** The longest repository-relative path a diff query or a comment may name. */
export const PATH_MAX = 4096;
/** At most this many line comments in one review (the contract with the web board). */
export const REVIEW_COMMENTS_MAX = 200;
/** Each comment's text and the summary are bounded like a field value. */
export const REVIEW_TEXT_MAX = 64 * 1024;

/** Why `p` is not a repository-relative path a diff can name, or null when it is one. */
export function pathProblem(p: string): string | null {
  if (p === '') return 'must not be empty';
  if (Buffer.byteLength(p, 'utf8') > PATH_MAX) return `is over ${describeBytes(PATH_MAX)}`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(p)) return 'must not hold control characters';
  if (p.startsWith('/')) return 'must be relative to the repository top';
  if (p.split('/').some((seg) => seg === '..' || seg === '.' || seg === ''))
    return 'must not hold empty, "." or ".." segments';
  return null;
}

const repoPath = (field: string) =>
  z.string({ error: `${field} must be a string` }).superRefine((p, ctx) => {
    const problem = pathProblem(p);
    if (problem) ctx.addIssue({ code: 'custom', message: `${field} ${problem}` });
  });

export const DiffQuerySchema = z.strictObject({
  run: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, 'run must be a step run id (a positive integer)')
    .transform(Number)
    .optional()
    .describe(
      'A step run id of the task: only what that attempt changed (between the HEADs it recorded, plus uncommitted work when it is the latest).',
    ),
  stat: z
    .enum(['true', 'false'], { error: 'stat must be true or false' })
    .optional()
    .describe('true: answer JSON (files with status and +/- counts) instead of the diff text.'),
  path: repoPath('path')
    .optional()
    .describe(
      'Only this file’s diff (a path relative to the repository top, as the stat lists it).',
    ),
});

export type DiffQuery = z.infer<typeof DiffQuerySchema>;

const nonBlank = (field: string, max: number) =>
  boundedString(field, max).refine((s) => s.trim() !== '', `${field} must not be blank`);

export const ReviewCommentSchema = z.strictObject({
  path: repoPath('path').describe('The file commented on: a path of the task’s diff.'),
  line: z
    .number({ error: 'line must be an integer from 1' })
    .int('line must be an integer from 1')
    .min(1, 'line must be an integer from 1')
    .max(100_000_000, 'line must be at most 100000000')
    .describe('The line commented on, numbered in the file on `side`.'),
  side: z
    .enum(['new', 'old'], { error: 'side must be new or old' })
    .optional()
    .describe('new (default): a line of the file as changed; old: a line of the base version.'),
  body: nonBlank('body', REVIEW_TEXT_MAX).describe('The comment (at most 64 KiB).'),
});

export type ReviewComment = z.infer<typeof ReviewCommentSchema>;

export const ReviewSchema = z
  .strictObject({
    comments: z
      .array(ReviewCommentSchema)
      .max(REVIEW_COMMENTS_MAX, `comments has over ${REVIEW_COMMENTS_MAX} entries`)
      .optional()
      .describe('Line-anchored comments; each reaches the agent with the hunk it points into.'),
    summary: boundedString('summary', REVIEW_TEXT_MAX)
      .optional()
      .describe('General remarks, placed before the line comments (at most 64 KiB).'),
    run: z
      .number({ error: 'run must be a step run id' })
      .int()
      .positive()
      .optional()
      .describe('The step run whose per-attempt diff the comments were made on.'),
    agent: z.string().min(1).max(64).optional().describe('Agent for the follow-up or repair run.'),
    model: z.string().max(256).optional().describe('Model for that run.'),
    effort: z.string().max(64).optional().describe('Effort for that run.'),
    dry_run: z
      .boolean()
      .optional()
      .describe('true: compose and return the prompt, change nothing.'),
  })
  .refine((b) => (b.comments?.length ?? 0) > 0 || (b.summary ?? '').trim() !== '', {
    message: 'give at least one comment or a summary',
    path: ['comments'],
  });

export type ReviewBody = z.infer<typeof ReviewSchema>;

/** The composed prompt goes to the agent as a follow-up or repair prompt, bounded as those are. */
export const REVIEW_PROMPT_MAX = BOUNDS.prompt;
