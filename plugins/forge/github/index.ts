/**
 * github: the GitHub integration (SPEC §2.10 `forge.*`, §4.4 rules 7–9). Detects remotes on
 * github.com (https, ssh and scp forms; `GH_HOST` or `GITHUB_SERVER_URL` add a GitHub Enterprise
 * host) and connects with what the user already has: the `gh` CLI when it is installed and
 * `gh auth status` passes for the host, else a token from `GH_TOKEN` or `GITHUB_TOKEN` against
 * the REST API (`GITHUB_API_URL` overrides the base URL, for GitHub Enterprise and tests). Both
 * are read from the environment the daemon hands it after its `environment` policy; nothing is
 * written or cached. Uses only the plugin door. Decision 086.
 */
import {
  defineForge,
  definePlugin,
  type ForgeConnection,
  type ForgeContext,
  type ForgeRepo,
  type ForgeResult,
} from '../../../kernel/plugin/index.js';
import { apiBase, detectGithub } from './detect.js';
import { isIssueJson, toIssue, toPull } from './normalize.js';
import { cliGet, type Get, tokenGet } from './transport.js';

function map<T>(
  r: ForgeResult<unknown>,
  fn: (v: unknown) => T | null,
  what: string,
): ForgeResult<T> {
  if (!r.ok) return r;
  const v = fn(r.value);
  return v === null
    ? { ok: false, reason: 'bad_response', message: `${what}: unexpected answer` }
    : { ok: true, value: v };
}

export function connection(via: 'cli' | 'token', get: Get): ForgeConnection {
  const repoPath = (repo: ForgeRepo) =>
    `repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}`;
  return {
    via,
    issue: async (repo, n) => {
      const r = await get(`${repoPath(repo)}/issues/${n}`);
      // The issues endpoint answers pull requests too, marked with `pull_request`.
      if (r.ok && isIssueJson(r.value) && (r.value as Record<string, unknown>).pull_request)
        return { ok: false, reason: 'wrong_kind', message: `#${n} is a pull request` };
      return map(r, (v) => (isIssueJson(v) ? toIssue(v) : null), `issue #${n}`);
    },
    pull: async (repo, n) => {
      const r = await get(`${repoPath(repo)}/pulls/${n}`);
      // Not a pull request: one more look says whether the number is an issue instead.
      if (!r.ok && r.reason === 'not_found') {
        const other = await get(`${repoPath(repo)}/issues/${n}`);
        if (
          other.ok &&
          isIssueJson(other.value) &&
          !(other.value as Record<string, unknown>).pull_request
        )
          return { ok: false, reason: 'wrong_kind', message: `#${n} is an issue` };
      }
      return map(r, (v) => (isIssueJson(v) ? toPull(v) : null), `pull request #${n}`);
    },
    listIssues: async (repo, q) => {
      const params = new URLSearchParams({
        state: q.state,
        sort: 'updated',
        direction: 'desc',
        per_page: String(q.limit),
      });
      if (q.labels && q.labels.length > 0) params.set('labels', q.labels.join(','));
      return map(
        await get(`${repoPath(repo)}/issues?${params}`),
        (v) =>
          Array.isArray(v)
            ? v
                .filter((i) => isIssueJson(i) && !(i as Record<string, unknown>).pull_request)
                .map((i) => toIssue(i as Record<string, unknown>))
            : null,
        'the issue list',
      );
    },
    listPulls: async (repo, q) => {
      const params = new URLSearchParams({
        state: q.state,
        sort: 'updated',
        direction: 'desc',
        per_page: String(q.limit),
      });
      return map(
        await get(`${repoPath(repo)}/pulls?${params}`),
        (v) =>
          Array.isArray(v)
            ? v.filter(isIssueJson).map((p) => toPull(p as Record<string, unknown>))
            : null,
        'the pull request list',
      );
    },
  };
}

/** `gh` when installed and logged in for the host, else a token variable, else unauthenticated. */
export async function connect(
  repo: ForgeRepo,
  ctx: ForgeContext,
): Promise<ForgeResult<ForgeConnection>> {
  const status = await ctx.run(['gh', 'auth', 'status', '--hostname', repo.host], {
    timeoutMs: 15_000,
  });
  if (!status.spawnError && status.code === 0)
    return { ok: true, value: connection('cli', cliGet(ctx, repo.host)) };
  const token = ctx.env.GH_TOKEN?.trim() || ctx.env.GITHUB_TOKEN?.trim();
  if (token)
    return {
      ok: true,
      value: connection('token', tokenGet(ctx, apiBase(repo.host, ctx.env), token)),
    };
  return {
    ok: false,
    reason: 'unauthenticated',
    message: status.spawnError
      ? `gh is not installed and neither GH_TOKEN nor GITHUB_TOKEN is set for the daemon`
      : `gh is not logged in to ${repo.host} (gh auth login) and neither GH_TOKEN nor GITHUB_TOKEN is set`,
  };
}

export const githubForge = defineForge({
  name: 'github',
  detect: detectGithub,
  connect,
});

export default definePlugin({
  name: 'svc:forge/github',
  svc: '^2.0.0',
  setup(api) {
    api.registerForge(githubForge);
  },
});
