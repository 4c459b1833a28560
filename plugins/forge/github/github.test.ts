// The GitHub forge: its contract suite, detection of every remote form, gh first then a token,
// the REST shapes it reads, and how HTTP and gh failures become reasons (decision 086).
import { describe, expect, it } from 'vitest';
import type { ForgeContext } from '../../../kernel/plugin/index.js';
import { bareForgeContext, describeForge } from '../../../test/support/describe-forge.js';
import { apiBase } from './detect.js';
import plugin, { connect, githubForge } from './index.js';
import { toPull } from './normalize.js';

describeForge(githubForge, {
  plugin,
  detect: [
    ['https://github.com/acme/widgets.git', 'acme/widgets'],
    ['https://github.com/acme/widgets', 'acme/widgets'],
    ['https://user:pw@GitHub.com/acme/widgets.git/', 'acme/widgets'],
    ['http://github.com/acme/widgets', 'acme/widgets'],
    ['git@github.com:acme/widgets.git', 'acme/widgets'],
    ['git@github.com:acme/widgets', 'acme/widgets'],
    ['ssh://git@github.com/acme/widgets.git', 'acme/widgets'],
    ['ssh://git@github.com:22/acme/widgets.git', 'acme/widgets'],
    ['git://github.com/acme/widgets.git', 'acme/widgets'],
    ['https://gitlab.com/acme/widgets.git', null],
    ['https://github.com/acme', null],
    ['https://github.com/acme/widgets/tree/main', null],
    ['git@github.example.com:acme/widgets.git', null],
    ['git@ghe.corp:acme/widgets.git', 'acme/widgets', { GH_HOST: 'ghe.corp' }],
    ['https://ghe.corp/acme/widgets', 'acme/widgets', { GITHUB_SERVER_URL: 'https://ghe.corp' }],
  ],
});

function recorder(
  answers: Record<
    string,
    { code: number | null; stdout?: string; stderr?: string; spawnError?: string }
  >,
) {
  const argvs: string[][] = [];
  const fetches: string[] = [];
  const ctx = (over: Partial<ForgeContext> = {}): ForgeContext =>
    bareForgeContext({
      run: async (argv) => {
        argvs.push([...argv]);
        const key = argv.slice(1, 3).join(' ');
        const a = answers[key] ?? { code: null, spawnError: 'ENOENT' };
        return {
          code: a.code,
          stdout: a.stdout ?? '',
          stderr: a.stderr ?? '',
          spawnError: a.spawnError ?? null,
        };
      },
      ...over,
    });
  return { argvs, fetches, ctx };
}

const REPO = { host: 'github.com', owner: 'acme', name: 'w', full_name: 'acme/w' };
const PULL = {
  number: 3,
  title: 'T',
  body: null,
  html_url: 'https://github.com/acme/w/pull/3',
  state: 'closed',
  merged_at: '2026-01-01T00:00:00Z',
  draft: false,
  labels: [{ name: 'x' }],
  user: { login: 'bob' },
  head: { ref: 'feat', sha: 'abc', repo: { full_name: 'Bob/w' } },
  base: { ref: 'main', repo: { full_name: 'acme/w' } },
  created_at: 'c',
  updated_at: 'u',
};

describe('connecting', () => {
  it('uses gh when auth status passes, asking gh api for the path', async () => {
    const r = recorder({
      'auth status': { code: 0 },
      'api --hostname': { code: 0, stdout: JSON.stringify(PULL) },
    });
    const conn = await connect(REPO, r.ctx({ env: { GH_TOKEN: 'ignored' } }));
    expect(conn.ok && conn.value.via).toBe('cli');
    if (!conn.ok) return;
    const pull = await conn.value.pull(REPO, 3);
    expect(pull).toMatchObject({
      ok: true,
      value: { state: 'merged', fork: true, head_repo: 'Bob/w', labels: ['x'], body: '' },
    });
    expect(r.argvs[1]).toEqual([
      'gh',
      'api',
      '--hostname',
      'github.com',
      '-H',
      'Accept: application/vnd.github+json',
      'repos/acme/w/pulls/3',
    ]);
  });

  it('reads gh failures: HTTP statuses from stderr, anything else unreachable', async () => {
    const r = recorder({
      'auth status': { code: 0 },
      'api --hostname': { code: 1, stderr: 'gh: Not Found (HTTP 404)\n' },
    });
    const conn = await connect(REPO, r.ctx());
    if (!conn.ok) throw new Error('no connection');
    expect(await conn.value.issue(REPO, 9)).toMatchObject({ ok: false, reason: 'not_found' });
    const r2 = recorder({
      'auth status': { code: 0 },
      'api --hostname': { code: 1, stderr: 'error connecting to api.github.com' },
    });
    const c2 = await connect(REPO, r2.ctx());
    if (!c2.ok) throw new Error('no connection');
    expect(await c2.value.issue(REPO, 9)).toMatchObject({ ok: false, reason: 'unreachable' });
  });

  it('falls back to GH_TOKEN, then GITHUB_TOKEN, against GITHUB_API_URL, with a bearer header', async () => {
    const seen: Array<{ url: string; auth: string | null }> = [];
    const fetch = (async (url: string, init?: RequestInit) => {
      seen.push({ url, auth: new Headers(init?.headers).get('authorization') });
      return new Response(
        JSON.stringify([
          { ...PULL, number: 1 },
          { ...PULL, number: 2, pull_request: {} },
        ]),
        { status: 200 },
      );
    }) as typeof globalThis.fetch;
    const r = recorder({ 'auth status': { code: 1, stderr: 'not logged in' } });
    const conn = await connect(
      REPO,
      r.ctx({ env: { GITHUB_TOKEN: 'tok2', GITHUB_API_URL: 'http://127.0.0.1:9/api/' }, fetch }),
    );
    expect(conn.ok && conn.value.via).toBe('token');
    if (!conn.ok) return;
    const list = await conn.value.listIssues(REPO, { state: 'open', labels: ['a', 'b'], limit: 5 });
    expect(list.ok && list.value.map((i) => i.number)).toEqual([1]);
    expect(seen[0]).toEqual({
      url: 'http://127.0.0.1:9/api/repos/acme/w/issues?state=open&sort=updated&direction=desc&per_page=5&labels=a%2Cb',
      auth: 'Bearer tok2',
    });
  });

  it.each([
    [404, {}, 'not_found'],
    [401, {}, 'forbidden'],
    [403, {}, 'forbidden'],
    [403, { 'x-ratelimit-remaining': '0' }, 'rate_limited'],
    [429, {}, 'rate_limited'],
    [500, {}, 'bad_response'],
  ])('maps HTTP %i to %s', async (status, headers, reason) => {
    const fetch = (async () =>
      new Response('{}', { status, headers })) as unknown as typeof globalThis.fetch;
    const conn = await connect(REPO, bareForgeContext({ env: { GH_TOKEN: 't' }, fetch }));
    if (!conn.ok) throw new Error('no connection');
    expect(await conn.value.issue(REPO, 1)).toMatchObject({ ok: false, reason });
  });

  it('maps a network failure to unreachable and non-JSON to bad_response', async () => {
    const down = await connect(REPO, bareForgeContext({ env: { GH_TOKEN: 't' } }));
    if (!down.ok) throw new Error('no connection');
    expect(await down.value.issue(REPO, 1)).toMatchObject({ ok: false, reason: 'unreachable' });
    const html = (async () =>
      new Response('<html>', { status: 200 })) as unknown as typeof globalThis.fetch;
    const c = await connect(REPO, bareForgeContext({ env: { GH_TOKEN: 't' }, fetch: html }));
    if (!c.ok) throw new Error('no connection');
    expect(await c.value.issue(REPO, 1)).toMatchObject({ ok: false, reason: 'bad_response' });
  });

  it('answers wrong_kind for a pull request number asked as an issue, and an issue number asked as a pull request', async () => {
    const fetch = (async () =>
      new Response(JSON.stringify({ ...PULL, pull_request: {} }), {
        status: 200,
      })) as unknown as typeof globalThis.fetch;
    const c = await connect(REPO, bareForgeContext({ env: { GH_TOKEN: 't' }, fetch }));
    if (!c.ok) throw new Error('no connection');
    expect(await c.value.issue(REPO, 3)).toMatchObject({
      ok: false,
      reason: 'wrong_kind',
      message: '#3 is a pull request',
    });
    // /pulls/4 is 404, /issues/4 an issue: the number is an issue.
    const issueOnly = (async (url: string | URL) =>
      String(url).includes('/pulls/')
        ? new Response('{"message":"Not Found"}', { status: 404 })
        : new Response(JSON.stringify({ ...PULL, number: 4 }), {
            status: 200,
          })) as unknown as typeof globalThis.fetch;
    const i = await connect(REPO, bareForgeContext({ env: { GH_TOKEN: 't' }, fetch: issueOnly }));
    if (!i.ok) throw new Error('no connection');
    expect(await i.value.pull(REPO, 4)).toMatchObject({
      ok: false,
      reason: 'wrong_kind',
      message: '#4 is an issue',
    });
    // Neither: still not_found.
    const nothing = (async () =>
      new Response('{"message":"Not Found"}', {
        status: 404,
      })) as unknown as typeof globalThis.fetch;
    const n = await connect(REPO, bareForgeContext({ env: { GH_TOKEN: 't' }, fetch: nothing }));
    if (!n.ok) throw new Error('no connection');
    expect(await n.value.pull(REPO, 9)).toMatchObject({ ok: false, reason: 'not_found' });
  });
});

describe('REST shapes', () => {
  it('a head whose fork was deleted is a fork with no head repository', () => {
    expect(
      toPull({ ...PULL, state: 'open', merged_at: null, head: { ref: 'x', sha: 's', repo: null } }),
    ).toMatchObject({
      state: 'open',
      fork: true,
      head_repo: null,
    });
    expect(toPull({ ...PULL, head: { ...PULL.head, repo: { full_name: 'ACME/w' } } }).fork).toBe(
      false,
    );
  });

  it('derives the REST base from the host unless GITHUB_API_URL says otherwise', () => {
    expect(apiBase('github.com', {})).toBe('https://api.github.com');
    expect(apiBase('ghe.corp', {})).toBe('https://ghe.corp/api/v3');
    expect(apiBase('github.com', { GITHUB_API_URL: 'http://x/' })).toBe('http://x');
  });
});
