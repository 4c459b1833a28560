/**
 * A local fake GitHub for forge tests: an HTTP server on 127.0.0.1 answering the REST routes the
 * GitHub forge uses (issue, pull, issue list, pull list) with GitHub's JSON shapes and a bearer
 * token check, and bare git repositories standing in for `https://github.com/<owner>/<name>.git`.
 * A project repository is pointed at them with git's `url.<base>.insteadOf`, so its `origin` keeps
 * the github.com URL the forge detects while fetches land in the bare repositories. Pull request
 * heads are pushed to the head repository's branch and to `refs/pull/N/head` on the base, as on
 * GitHub, so fork heads are fetched the way the engine fetches them.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';
import { git, gitRepo, type Repo } from './git.js';
import { tempDir } from './tmp.js';

type Json = Record<string, unknown>;

export interface FakeIssueInput {
  number: number;
  title?: string;
  body?: string;
  state?: 'open' | 'closed';
  labels?: string[];
  author?: string;
  updated_at?: string;
}

export interface FakePullInput {
  number: number;
  title?: string;
  body?: string;
  state?: 'open' | 'closed';
  merged?: boolean;
  draft?: boolean;
  author?: string;
  head_ref: string;
  /** `owner/name` of the head repository; the base repository when left out. */
  head_repo?: string | null;
  base_ref?: string;
  updated_at?: string;
  /** Files committed on the head (on top of the base branch). */
  files?: Record<string, string>;
}

export interface FakeGithub {
  /** REST base URL (GITHUB_API_URL). */
  url: string;
  token: string;
  /** Directory holding `<owner>/<name>.git`. */
  root: string;
  /** Every request; `scheme` is `Bearer` from a token, `token` from the fake gh. */
  requests: Array<{ method: string; path: string; authorized: boolean; scheme: string }>;
  /** Creates the bare repository for `owner/name`, seeded from `seed` when given. */
  repo(full: string, seed?: Repo): string;
  issue(full: string, input: FakeIssueInput): Json;
  pull(full: string, input: FakePullInput): Json;
  /** A project repository whose origin is `https://github.com/<full>.git`, routed to the fake. */
  clone(full: string): Repo;
  /** Edits a pull request without touching its head (its update time moves). */
  touchPull(full: string, n: number, patch: Json): void;
  /** Pushes a new commit onto a pull request's head (a "synchronize"). */
  pushToPull(full: string, n: number, files: Record<string, string>): string;
  /** Makes every request answer `status` (e.g. 500) until cleared with null. */
  failWith(status: number | null): void;
}

function stamp(n: number): string {
  return new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString().replace('.000', '');
}

export async function fakeGithub(token = 'ghp_fake_token_for_tests'): Promise<FakeGithub> {
  const root = tempDir('svc-github-');
  const issues = new Map<string, Map<number, Json>>();
  const pulls = new Map<string, Map<number, Json>>();
  const requests: FakeGithub['requests'] = [];
  let failure: number | null = null;
  let clock = 0;
  const nextStamp = () => stamp(++clock);

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const auth = req.headers.authorization ?? '';
    const authorized = auth === `Bearer ${token}` || auth === `token ${token}`;
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname + url.search,
      authorized,
      scheme: auth.split(' ')[0] ?? '',
    });
    if (!authorized) return send(res, 401, { message: 'Bad credentials' });
    if (failure !== null) return send(res, failure, { message: 'failure' });
    const m = /^\/repos\/([^/]+)\/([^/]+)\/(issues|pulls)(?:\/(\d+))?$/.exec(url.pathname);
    if (!m || req.method !== 'GET') return send(res, 404, { message: 'Not Found' });
    const full = `${m[1]}/${m[2]}`;
    const kind = m[3] as 'issues' | 'pulls';
    const n = m[4] ? Number(m[4]) : null;
    const iss = issues.get(full);
    const prs = pulls.get(full);
    if (!iss || !prs) return send(res, 404, { message: 'Not Found' });
    if (n !== null) {
      if (kind === 'pulls') {
        const p = prs.get(n);
        return p ? send(res, 200, p) : send(res, 404, { message: 'Not Found' });
      }
      const i = iss.get(n);
      if (i) return send(res, 200, i);
      const p = prs.get(n);
      return p ? send(res, 200, asIssue(p)) : send(res, 404, { message: 'Not Found' });
    }
    const state = url.searchParams.get('state') ?? 'open';
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    const labels = (url.searchParams.get('labels') ?? '').split(',').filter(Boolean);
    let list: Json[] =
      kind === 'pulls' ? [...prs.values()] : [...iss.values(), ...[...prs.values()].map(asIssue)];
    list = list.filter((x) => state === 'all' || x.state === state);
    if (labels.length > 0)
      list = list.filter((x) =>
        labels.every((l) => (x.labels as Array<{ name: string }>).some((y) => y.name === l)),
      );
    list.sort((a, b) => String(b.updated_at).localeCompare(String(a.updated_at)));
    return send(res, 200, list.slice(0, perPage));
  };

  const asIssue = (p: Json): Json => ({
    number: p.number,
    title: p.title,
    body: p.body,
    html_url: p.html_url,
    state: p.state,
    labels: p.labels,
    user: p.user,
    created_at: p.created_at,
    updated_at: p.updated_at,
    pull_request: { url: p.url },
  });

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  } catch {}

  const barePath = (full: string) => join(root, `${full}.git`);
  const ensure = (full: string) => {
    if (!issues.has(full)) issues.set(full, new Map());
    if (!pulls.has(full)) pulls.set(full, new Map());
  };

  const fake: FakeGithub = {
    url: `http://127.0.0.1:${port}`,
    token,
    root,
    requests,
    failWith: (s) => {
      failure = s;
    },
    repo(full, seed) {
      ensure(full);
      const bare = barePath(full);
      mkdirSync(dirname(bare), { recursive: true });
      git(dirname(bare), 'init', '-q', '--bare', '-b', 'main', bare);
      if (seed) seed.git('push', '-q', bare, 'HEAD:refs/heads/main');
      return bare;
    },
    clone(full) {
      const repo = gitRepo();
      repo.git('config', `url.${root}/.insteadOf`, 'https://github.com/');
      repo.git('remote', 'add', 'origin', `https://github.com/${full}.git`);
      fake.repo(full, repo);
      repo.git('fetch', '-q', 'origin');
      repo.git('branch', '-q', '--set-upstream-to=origin/main', 'main');
      return repo;
    },
    issue(full, input) {
      ensure(full);
      const json: Json = {
        number: input.number,
        title: input.title ?? `Issue ${input.number}`,
        body: input.body ?? '',
        html_url: `https://github.com/${full}/issues/${input.number}`,
        state: input.state ?? 'open',
        labels: (input.labels ?? []).map((name) => ({ name })),
        user: { login: input.author ?? 'octocat' },
        created_at: stamp(0),
        updated_at: input.updated_at ?? nextStamp(),
      };
      issues.get(full)?.set(input.number, json);
      return json;
    },
    pull(full, input) {
      ensure(full);
      const headRepo = input.head_repo === undefined ? full : input.head_repo;
      const base = input.base_ref ?? 'main';
      // Build the head: a commit on the base branch, pushed to the head repository's branch and
      // to refs/pull/N/head of the base repository.
      const work = gitRepo();
      work.git('fetch', '-q', barePath(full), `${base}:refs/remotes/base/${base}`);
      work.git('checkout', '-q', '-B', 'head', `refs/remotes/base/${base}`);
      const sha = work.commit(
        `pull ${input.number}`,
        input.files ?? { [`pr-${input.number}.txt`]: 'change\n' },
      );
      if (headRepo) {
        if (headRepo !== full && !issues.has(headRepo)) fake.repo(headRepo);
        work.git('push', '-q', '-f', barePath(headRepo), `HEAD:refs/heads/${input.head_ref}`);
      }
      work.git('push', '-q', '-f', barePath(full), `HEAD:refs/pull/${input.number}/head`);
      const json: Json = {
        url: `https://api.github.com/repos/${full}/pulls/${input.number}`,
        number: input.number,
        title: input.title ?? `Pull ${input.number}`,
        body: input.body ?? '',
        html_url: `https://github.com/${full}/pull/${input.number}`,
        state: input.state ?? 'open',
        draft: input.draft ?? false,
        merged_at: input.merged ? stamp(99) : null,
        labels: [],
        user: { login: input.author ?? 'contributor' },
        head: { ref: input.head_ref, sha, repo: headRepo ? { full_name: headRepo } : null },
        base: { ref: base, repo: { full_name: full } },
        created_at: stamp(0),
        updated_at: input.updated_at ?? nextStamp(),
      };
      pulls.get(full)?.set(input.number, json);
      return json;
    },
    touchPull(full, n, patch) {
      const p = pulls.get(full)?.get(n) as Json;
      Object.assign(p, patch, { updated_at: nextStamp() });
    },
    pushToPull(full, n, files) {
      const p = pulls.get(full)?.get(n) as Json;
      const head = p.head as { ref: string; sha: string; repo: { full_name: string } | null };
      const work = gitRepo();
      work.git('fetch', '-q', barePath(full), `refs/pull/${n}/head:refs/remotes/pr`);
      work.git('checkout', '-q', '-B', 'head', 'refs/remotes/pr');
      const sha = work.commit(`push to ${n}`, files);
      if (head.repo)
        work.git('push', '-q', '-f', barePath(head.repo.full_name), `HEAD:refs/heads/${head.ref}`);
      work.git('push', '-q', '-f', barePath(full), `HEAD:refs/pull/${n}/head`);
      p.head = { ...head, sha };
      p.updated_at = nextStamp();
      return sha;
    },
  };
  return fake;
}

/** The directory of the fake `gh` (test/fixtures/fake-gh), to put first on PATH. */
export const FAKE_GH_DIR = join(import.meta.dirname, '..', 'fixtures', 'fake-gh');

/**
 * `environment:` config lines for the daemon: `token` mode (no gh on PATH, GH_TOKEN set) or
 * `gh` mode (the fake gh first on PATH, logged in unless `loggedIn` is false, no token).
 */
export function forgeEnvironment(
  fake: FakeGithub,
  mode: 'token' | 'gh' | 'none',
  opts: { loggedIn?: boolean; log?: string; token?: boolean } = {},
): string {
  const emptyBin = tempDir('svc-nobin-');
  const nodeDir = dirname(process.execPath);
  const set: Record<string, string> = { GITHUB_API_URL: fake.url };
  const unset = ['GH_TOKEN', 'GITHUB_TOKEN'];
  if (mode === 'token') {
    set.PATH = emptyBin;
    set.GH_TOKEN = fake.token;
  } else if (mode === 'none') {
    set.PATH = emptyBin;
  } else {
    set.PATH = `${FAKE_GH_DIR}:${nodeDir}:/usr/bin:/bin`;
    set.SVC_FAKE_GH_SERVER = fake.url;
    set.SVC_FAKE_GH_TOKEN = fake.token;
    set.SVC_FAKE_GH_AUTH = opts.loggedIn === false ? '0' : '1';
    if (opts.token) set.GITHUB_TOKEN = fake.token;
    if (opts.log) set.SVC_FAKE_GH_LOG = opts.log;
  }
  const lines = Object.entries(set).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`);
  return `environment:\n  unset: [${unset.join(', ')}]\n  set:\n${lines.join('\n')}\n`;
}

/** Registers a project on a fake-GitHub clone carrying the given project workflows. */
export async function forgeProject(
  t: import('./app.js').TestApp,
  fake: FakeGithub,
  full = 'acme/widgets',
  workflows: Record<string, string> = {},
): Promise<{ repo: Repo; project: { id: number; name: string; path: string } }> {
  const { withWorkflows } = await import('./tasks.js');
  const repo = fake.clone(full);
  if (Object.keys(workflows).length > 0) {
    withWorkflows(repo, workflows);
    repo.git('push', '-q', 'origin', 'main');
  }
  const project = await t.json<{ id: number; name: string; path: string }>('POST', '/v1/projects', {
    path: repo.path,
  });
  return { repo, project };
}
