/**
 * The two ways to GET a REST path: through `gh api` (the user's own login, any host gh knows),
 * or with a token from GH_TOKEN / GITHUB_TOKEN against the REST base URL. Both answer the same
 * JSON, so everything above them is shared. Failures become forge reasons: 404 `not_found`,
 * 401/403 `forbidden` (403 with an exhausted limit, and 429, `rate_limited`), no answer
 * `unreachable`, unreadable JSON `bad_response`. Neither stores the credential it used.
 */
import type {
  ForgeContext,
  ForgeFailureReason,
  ForgeResult,
} from '../../../kernel/plugin/index.js';

export type Get = (path: string) => Promise<ForgeResult<unknown>>;

const TIMEOUT_MS = 30_000;

function byStatus(status: number, rateLimited: boolean): ForgeFailureReason {
  if (status === 404 || status === 410) return 'not_found';
  if (status === 429 || (status === 403 && rateLimited)) return 'rate_limited';
  if (status === 401 || status === 403) return 'forbidden';
  return 'bad_response';
}

function parse(text: string, what: string): ForgeResult<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: 'bad_response', message: `${what} did not answer JSON` };
  }
}

export function cliGet(ctx: ForgeContext, host: string): Get {
  return async (path) => {
    const r = await ctx.run(
      ['gh', 'api', '--hostname', host, '-H', 'Accept: application/vnd.github+json', path],
      { timeoutMs: TIMEOUT_MS },
    );
    if (r.spawnError)
      return { ok: false, reason: 'unreachable', message: `cannot run gh: ${r.spawnError}` };
    if (r.code !== 0) {
      const status = /\(HTTP (\d{3})\)/.exec(r.stderr);
      const message = `gh api ${path}: ${r.stderr.trim().split('\n').slice(-2).join(' ') || `exit ${r.code}`}`;
      if (!status) return { ok: false, reason: 'unreachable', message };
      return {
        ok: false,
        reason: byStatus(Number(status[1]), /rate limit/i.test(r.stderr)),
        message,
      };
    }
    return parse(r.stdout, 'gh api');
  };
}

export function tokenGet(ctx: ForgeContext, base: string, token: string): Get {
  return async (path) => {
    const url = `${base}/${path.replace(/^\/+/, '')}`;
    const signals = [AbortSignal.timeout(TIMEOUT_MS), ...(ctx.signal ? [ctx.signal] : [])];
    let res: Response;
    try {
      res = await ctx.fetch(url, {
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${token}`,
          'x-github-api-version': '2022-11-28',
          'user-agent': 'svc',
        },
        signal: AbortSignal.any(signals),
      });
    } catch (err) {
      return { ok: false, reason: 'unreachable', message: `GET ${url}: ${(err as Error).message}` };
    }
    const text = await res.text();
    if (!res.ok) {
      const limited = res.headers.get('x-ratelimit-remaining') === '0';
      return {
        ok: false,
        reason: byStatus(res.status, limited),
        message: `GET ${url}: HTTP ${res.status}`,
      };
    }
    return parse(text, `GET ${url}`);
  };
}
