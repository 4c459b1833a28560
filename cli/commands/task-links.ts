/**
 * What ties a task to something outside it, as `svc task create` and `svc task show` meet it: the
 * code host's issue or pull request it starts from (issue 20), and the chat whose lock it is under.
 * Kept out of tasks.ts so that file stays the commands themselves.
 */
import type { OptionSpec } from '../command.js';
import { positiveId, UsageError } from '../format.js';

/** The fields of a task view this file reads (GET /v1/tasks/{id}). */
export interface TaskLinks {
  open_chat_id?: number;
  forge_issue?: { number: number; url: string; state: string; repo: string };
  forge_pull?: {
    number: number;
    url: string;
    repo: string;
    head_ref: string;
    fork: boolean;
    live?: { state: string | null; error?: string | null };
  };
}

/** `svc task create --issue N | --pull N`: POST /v1/tasks's forge_issue and forge_pull. */
export const FORGE_CREATE_OPTIONS: Record<string, OptionSpec> = {
  issue: {
    type: 'string',
    description: 'start from this issue of the project’s code host (prefills title, description)',
  },
  pull: {
    type: 'string',
    description: 'work on this pull request: its branch, fetched at admission',
  },
};

/** Adds --issue or --pull to a create body; both at once is a usage error. */
export function forgeCreateBody(o: Record<string, unknown>, body: Record<string, unknown>): void {
  if (typeof o.issue === 'string' && typeof o.pull === 'string')
    throw new UsageError('give --issue or --pull, not both');
  if (typeof o.issue === 'string') body.forge_issue = positiveId(o.issue, '--issue');
  if (typeof o.pull === 'string') body.forge_pull = positiveId(o.pull, '--pull');
}

/**
 * The issue or pull request a task came from, with its state: an issue's as it was at creation
 * (the snapshot is never re-read), a pull request's as the reconciler last saw it.
 */
export function forgeLines(t: TaskLinks): string[] {
  const out: string[] = [];
  if (t.forge_issue)
    out.push(`  issue     #${t.forge_issue.number} ${t.forge_issue.state}  ${t.forge_issue.url}`);
  if (t.forge_pull) {
    const p = t.forge_pull;
    const state = p.live?.state ?? 'not checked yet';
    out.push(
      `  pull      #${p.number} ${state}${p.live?.error ? ` (last check: ${p.live.error})` : ''}  ${p.url}${p.fork ? ' (from a fork)' : ''}`,
    );
  }
  return out;
}

/** The chat open on a task: the lock every action but cancel runs into, and how to lift it. */
export function chatLockLines(t: TaskLinks): string[] {
  if (!t.open_chat_id) return [];
  const id = t.open_chat_id;
  return [
    `  chat      ${id} is open on this task and locks it (svc chat close ${id} lifts the lock)`,
  ];
}
