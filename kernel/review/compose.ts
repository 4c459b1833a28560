/**
 * The prompt a review becomes (issue 16 point 5, docs/tasks.md "Reviewing a task"): the summary,
 * then each line comment as `path:line: comment` followed by the part of the hunk it points into,
 * as a small hunk of its own (its `@@` header recomputed), so the agent sees the code the human saw.
 */
import {
  type DiffHunk,
  type DiffSection,
  hunkAt,
  parseUnifiedDiff,
} from '../../shared/unified-diff.js';
import type { TaskRow } from '../store/index.js';
import type { ReviewComment } from './schema.js';

/** Lines of context kept on each side of the commented line. */
export const EXCERPT_RADIUS = 8;
/** A longer line is cut (minified code would otherwise swamp the prompt). */
const LINE_MAX = 400;

export interface Excerpt {
  text: string;
}

/** Lines `index - radius … index + radius` of `hunk` as a hunk of their own. */
export function hunkExcerpt(hunk: DiffHunk, index: number, radius = EXCERPT_RADIUS): string {
  const from = Math.max(0, index - radius);
  const to = Math.min(hunk.lines.length, index + radius + 1);
  let oldNo = hunk.oldStart;
  let newNo = hunk.newStart;
  for (const l of hunk.lines.slice(0, from)) {
    if (l.kind !== 'add' && l.kind !== 'note') oldNo++;
    if (l.kind !== 'del' && l.kind !== 'note') newNo++;
  }
  const part = hunk.lines.slice(from, to);
  const oldCount = part.filter((l) => l.kind === 'context' || l.kind === 'del').length;
  const newCount = part.filter((l) => l.kind === 'context' || l.kind === 'add').length;
  // git's own convention: `-5` for one line, `-4,0` (the line before) for none.
  const range = (start: number, count: number) =>
    count === 1 ? `${start}` : `${count === 0 ? Math.max(0, start - 1) : start},${count}`;
  const head = `@@ -${range(oldNo, oldCount)} +${range(newNo, newCount)} @@${hunk.section ? ` ${hunk.section}` : ''}`;
  const body = part.map((l) => {
    const text = l.text.length > LINE_MAX ? `${l.text.slice(0, LINE_MAX)}…` : l.text;
    if (l.kind === 'note') return text;
    return `${l.kind === 'add' ? '+' : l.kind === 'del' ? '-' : ' '}${text}`;
  });
  return [head, ...body].join('\n');
}

/** A fence longer than any run of backticks in `text`, so the hunk cannot close it. */
function fence(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

export interface ComposeInput {
  task: Pick<TaskRow, 'id' | 'title'>;
  summary?: string;
  comments: readonly ReviewComment[];
  /** The diff text of (at least) the files commented on. */
  diff: string;
  /** The step run the comments were made on, described (`run 7 (implement, attempt 2)`). */
  run?: string;
}

/** Where a comment lands in the parsed diff, for ordering and for its excerpt. */
function locate(files: DiffSection[], c: ReviewComment) {
  const at = files.findIndex((f) => f.path === c.path || f.oldPath === c.path);
  const file = files[at];
  const hit = file ? hunkAt(file, c.line, c.side ?? 'new') : null;
  return { order: at < 0 ? files.length : at, file, hit };
}

/** The prompt a review sends to the agent. */
export function composeReview(input: ComposeInput): string {
  const files = parseUnifiedDiff(input.diff);
  const parts: string[] = [
    `A human reviewed your changes on task ${input.task.id} "${input.task.title}"${input.run ? ` (the changes of step ${input.run})` : ''} and asks you to address the review below. Work in the current directory (the task's worktree).`,
  ];
  const summary = input.summary?.trim();
  if (summary) parts.push(summary);
  const placed = input.comments
    .map((c, i) => ({ c, i, ...locate(files, c) }))
    .sort(
      (a, b) =>
        a.order - b.order ||
        (a.c.side ?? 'new').localeCompare(b.c.side ?? 'new') ||
        a.c.line - b.c.line ||
        a.i - b.i,
    );
  if (placed.length > 0) {
    parts.push(
      `Line comments (${placed.length}). Each names a file and a line of it as it is now (\`(old)\`: a line of the version before your changes), then shows the hunk around that line. Address every comment.`,
    );
    placed.forEach(({ c, file, hit }, n) => {
      const where = `${c.path}:${c.line}${c.side === 'old' ? ' (old)' : ''}`;
      const lines = [`${n + 1}. ${where}: ${c.body.trim()}`];
      if (hit) {
        const excerpt = hunkExcerpt(hit.hunk, hit.index);
        const f = fence(excerpt);
        lines.push(`${f}diff\n${excerpt}\n${f}`);
      } else if (file?.binary) lines.push('(a binary file: no lines to show)');
      else lines.push(`(line ${c.line} is outside the changed lines of ${c.path})`);
      parts.push(lines.join('\n'));
    });
  }
  return parts.join('\n\n');
}
