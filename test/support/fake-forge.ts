/**
 * An in-memory forge connection for unit tests of sources that read a code host: it answers from
 * lists the test holds and records the queries it was asked.
 */
import type {
  ForgeConnection,
  ForgeIssue,
  ForgePull,
  ForgeRepo,
  IssueQuery,
  PullQuery,
} from '../../kernel/plugin/index.js';

export const REPO: ForgeRepo = {
  host: 'github.com',
  owner: 'acme',
  name: 'w',
  full_name: 'acme/w',
};

export function issue(n: number, updated: string, extra: Partial<ForgeIssue> = {}): ForgeIssue {
  return {
    number: n,
    title: `Issue ${n}`,
    body: '',
    url: `https://github.com/acme/w/issues/${n}`,
    state: 'open',
    labels: [],
    author: 'octocat',
    created_at: '2026-01-01T00:00:00Z',
    updated_at: updated,
    ...extra,
  };
}

export function pull(
  n: number,
  updated: string,
  sha: string,
  extra: Partial<ForgePull> = {},
): ForgePull {
  return {
    number: n,
    title: `Pull ${n}`,
    body: '',
    url: `https://github.com/acme/w/pull/${n}`,
    state: 'open',
    draft: false,
    labels: [],
    author: 'octocat',
    head_ref: `b${n}`,
    head_sha: sha,
    head_repo: 'acme/w',
    base_ref: 'main',
    fork: false,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: updated,
    ...extra,
  };
}

export function fakeConnection(issues: ForgeIssue[], pulls: ForgePull[] = []) {
  const queries: Array<IssueQuery | PullQuery> = [];
  const conn: ForgeConnection = {
    via: 'token',
    issue: async (_r, n) => {
      const i = issues.find((x) => x.number === n);
      return i ? { ok: true, value: i } : { ok: false, reason: 'not_found', message: 'no' };
    },
    pull: async (_r, n) => {
      const p = pulls.find((x) => x.number === n);
      return p ? { ok: true, value: p } : { ok: false, reason: 'not_found', message: 'no' };
    },
    listIssues: async (_r, q) => {
      queries.push(q);
      return { ok: true, value: issues };
    },
    listPulls: async (_r, q) => {
      queries.push(q);
      return { ok: true, value: pulls };
    },
  };
  return { conn, queries, repo: REPO };
}
