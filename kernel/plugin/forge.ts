/**
 * The code-host contract (SPEC §2.10 `forge.*`, §4.4 rules 7–9): a forge recognizes its remotes
 * and, given the daemon's environment, connects with whatever credentials the user already has.
 * It stores nothing: no token is written anywhere (the GitHub plugin drives `gh` when installed
 * and authenticated, else reads `GH_TOKEN`/`GITHUB_TOKEN` from the environment it is handed).
 * Every call answers a value: a failure is `{ok:false, reason}` with a reason from
 * `ForgeFailureReason`, never a throw, so the kernel can turn it into 409 `details.reason`.
 */

/** A repository on a code host, as named by a remote URL. */
export interface ForgeRepo {
  /** Host name, lowercase (`github.com`). */
  host: string;
  owner: string;
  name: string;
  /** `owner/name`. */
  full_name: string;
}

export interface ForgeIssue {
  number: number;
  title: string;
  body: string;
  url: string;
  state: 'open' | 'closed';
  labels: string[];
  /** Login of the author. */
  author: string;
  created_at: string;
  updated_at: string;
}

export interface ForgePull {
  number: number;
  title: string;
  body: string;
  url: string;
  /** `merged` when closed by a merge. */
  state: 'open' | 'closed' | 'merged';
  draft: boolean;
  labels: string[];
  author: string;
  head_ref: string;
  head_sha: string;
  /** `owner/name` of the head's repository; null when the fork was deleted. */
  head_repo: string | null;
  base_ref: string;
  /** True when the head lives in another repository than the base. */
  fork: boolean;
  created_at: string;
  updated_at: string;
}

export type ForgeFailureReason =
  /** No usable credential: the CLI is missing or logged out, and no token variable is set. */
  | 'unauthenticated'
  /** The host refused the credential for this repository (HTTP 401/403 without a rate limit). */
  | 'forbidden'
  | 'rate_limited'
  /** The issue, pull request or repository does not exist (or is invisible to the credential). */
  | 'not_found'
  /** The host could not be reached, or the CLI failed without an HTTP status. */
  | 'unreachable'
  /** The host answered something the plugin cannot read. */
  | 'bad_response'
  /**
   * The number names the other kind of item: a pull request asked for as an issue, or an issue
   * asked for as a pull request (GitHub numbers both in one sequence).
   */
  | 'wrong_kind';

export type ForgeResult<T> =
  | { ok: true; value: T }
  | { ok: false; reason: ForgeFailureReason; message: string };

/** What a forge may use to reach its host. */
export interface ForgeContext {
  /** The daemon's environment after its `environment` policy: credentials are read from here. */
  env: Record<string, string>;
  signal?: AbortSignal;
  /** Runs argv (no shell) with `env`; a missing program is `spawnError`, never a throw. */
  run(
    argv: readonly string[],
    opts?: { timeoutMs?: number },
  ): Promise<{ code: number | null; stdout: string; stderr: string; spawnError: string | null }>;
  /** `fetch`, injectable for tests. */
  fetch: typeof fetch;
}

export interface IssueQuery {
  state: 'open' | 'closed' | 'all';
  labels?: readonly string[];
  /** At most this many, most recently updated first. */
  limit: number;
}

export interface PullQuery {
  state: 'open' | 'closed' | 'all';
  limit: number;
}

/** A connection to one host with one credential; how it was made is reported in `via`. */
export interface ForgeConnection {
  /** `cli` (the forge's own command line) or `token` (an environment variable). */
  readonly via: 'cli' | 'token';
  issue(repo: ForgeRepo, n: number): Promise<ForgeResult<ForgeIssue>>;
  pull(repo: ForgeRepo, n: number): Promise<ForgeResult<ForgePull>>;
  /** Issues only (pull requests filtered out), most recently updated first. */
  listIssues(repo: ForgeRepo, q: IssueQuery): Promise<ForgeResult<ForgeIssue[]>>;
  listPulls(repo: ForgeRepo, q: PullQuery): Promise<ForgeResult<ForgePull[]>>;
}

export interface Forge {
  /** The forge's id (`github`), equal to the plugin folder name. */
  readonly name: string;
  /**
   * The repository a remote URL names on this code host, or null when the remote is elsewhere.
   * `env` may name extra hosts (GitHub Enterprise). Two forges matching one remote stop the
   * lookup with an error naming both (STYLE: declared data decides, never discovery order).
   */
  detect(remoteUrl: string, env?: Record<string, string>): ForgeRepo | null;
  /**
   * Connects for `repo`, choosing the credential. `unauthenticated` when there is none; never
   * writes or caches a credential.
   */
  connect?(repo: ForgeRepo, ctx: ForgeContext): Promise<ForgeResult<ForgeConnection>>;
}

/** Identity helper giving plugin authors type checking. */
export function defineForge(forge: Forge): Forge {
  return forge;
}
