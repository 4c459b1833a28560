/**
 * review: what a task changed and the human's answer to it (issue 16). A task's diff — its
 * worktree (untracked files included) or, once that is gone, its branch, against the merge base
 * with its base branch, or one step run's changes — as text, a stat or one file; and line comments
 * composed into one prompt sent back as a follow-up or, at a gate, a reject then repair.
 * Uses: git, store, projects, errors, http field bounds. Used by: http routes, MCP tools.
 * Decisions 170 (untracked files, branch fallback), 171 (step-run HEADs), 172 (review prompt).
 */

export { composeReview, EXCERPT_RADIUS, hunkExcerpt } from './compose.js';
export {
  type DiffDeps,
  type DiffOptions,
  type DiffStat,
  type DiffText,
  isDiffText,
  taskDiff,
} from './diff.js';
export { type ReviewAction, type ReviewDeps, type ReviewResult, reviewTask } from './review.js';
export {
  type DiffQuery,
  DiffQuerySchema,
  pathProblem,
  type ReviewBody,
  type ReviewComment,
  ReviewCommentSchema,
  ReviewSchema,
} from './schema.js';
export type { DiffSource } from './source.js';
