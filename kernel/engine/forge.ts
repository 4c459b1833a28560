/**
 * Task creation from an issue or a pull request (SPEC §4.4 rules 7–9): what the code host
 * prefills and how the request's own values win. Presence decides for `description` and each
 * `fields` key (a key sent empty stays cleared); `title` alone also yields when sent empty. A pull
 * request fixes the branch (its head, above any literal `branch_name`) and writes the link.
 */
import { SvcError } from '../errors.js';
import type { ForgeIssue } from '../plugin/index.js';
import type { Project } from '../projects/index.js';
import type { WorkflowSnapshot } from './model.js';
import type { ForgePort } from './ports.js';
import { forkBranchName, type PullLink, pullLink } from './pull.js';
import type { CreateTask } from './schema.js';

/** The snapshot kept on the task (`forge_issue`): the listing's shape, body left in the description. */
export type IssueSnapshot = Omit<ForgeIssue, 'body'> & { repo: string };

export interface Prefill {
  title: string;
  description: string;
  /** The request's fields with the declared prefill fields added where the request has no key. */
  fields(snapshot: WorkflowSnapshot): Record<string, string>;
  branch?: string;
  baseBranch?: string;
  issue?: IssueSnapshot;
  pull?: PullLink;
}

function declares(snapshot: WorkflowSnapshot, name: string): boolean {
  const fields = snapshot.fields;
  return (
    Array.isArray(fields) &&
    fields.some(
      (f) => f !== null && typeof f === 'object' && (f as { name?: unknown }).name === name,
    )
  );
}

function linkLine(what: string, url: string): string {
  return `${what}: ${url}`;
}

function withLink(body: string, line: string): string {
  const text = body.replace(/\s+$/, '');
  return text === '' ? line : `${text}\n\n${line}`;
}

export async function forgePrefill(
  forge: ForgePort | undefined,
  project: Project,
  body: CreateTask,
  via: string | undefined,
): Promise<Prefill> {
  const own = {
    title: body.title ?? '',
    description: body.description ?? '',
    fields: (_s: WorkflowSnapshot) => ({ ...(body.fields ?? {}) }),
  };
  if (body.forge_issue === undefined && body.forge_pull === undefined) return own;
  if (!forge)
    throw new SvcError('invalid_state', 'the code-host integration is not available', {
      reason: 'forge_unavailable',
    });
  const titled = (prefilled: string) =>
    body.title !== undefined && body.title.trim() !== '' ? body.title : prefilled;
  const described = (prefilled: string) =>
    body.description !== undefined ? body.description : prefilled;
  const withField = (name: string, value: string) => (s: WorkflowSnapshot) => {
    const fields = { ...(body.fields ?? {}) };
    if (!(name in fields) && declares(s, name)) fields[name] = value;
    return fields;
  };

  if (body.forge_issue !== undefined) {
    const { issue, repo } = await forge.issue(project, body.forge_issue);
    const { body: text, ...rest } = issue;
    return {
      title: titled(issue.title),
      description: described(withLink(text, linkLine(`Issue #${issue.number}`, issue.url))),
      fields: withField('issue', String(issue.number)),
      issue: { ...rest, repo: repo.full_name },
    };
  }
  const n = body.forge_pull as number;
  const { pull, repo } = await forge.pull(project, n);
  return {
    title: titled(`#${pull.number} ${pull.title}`),
    description: described(withLink(pull.body, linkLine(`Pull request #${pull.number}`, pull.url))),
    fields: withField('pull', String(pull.number)),
    // A fork's head goes into a branch of svc's own, never onto a local branch (decision 199).
    branch: pull.fork ? forkBranchName(pull) : pull.head_ref,
    baseBranch: pull.base_ref,
    pull: pullLink(pull, repo, via),
  };
}
