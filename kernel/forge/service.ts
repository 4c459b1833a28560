/**
 * The code-host integration as the kernel uses it (SPEC §2.10 `forge.*`, §4.4 rules 7–9): for a
 * project, read its `origin` remote as configured (insteadOf rewrites are not applied, so the URL
 * is the one the user wrote), ask every registered forge whether it names a repository there,
 * and connect with the credentials already in the daemon's environment. Nothing is stored.
 * Why an integration is unusable is a stable reason (`forge_disabled`, `forge_not_detected`,
 * `forge_unauthenticated`, …) that POST /v1/tasks answers as 409 `details.reason`.
 */
import { tmpdir } from 'node:os';
import type { Logger } from 'pino';
import type { Clock } from '../clock/index.js';
import type { ConfigService } from '../config/index.js';
import { SvcError } from '../errors.js';
import { gitRaw } from '../git/index.js';
import type {
  Forge,
  ForgeConnection,
  ForgeContext,
  ForgeFailureReason,
  ForgeIssue,
  ForgePull,
  ForgeRepo,
  Registry,
} from '../plugin/index.js';
import { capture, resolveEnvironment } from '../proc/index.js';
import type { Project } from '../projects/index.js';

export type ForgeResolution =
  | { ok: true; forge: Forge; repo: ForgeRepo; conn: ForgeConnection }
  | { ok: false; reason: string; message: string };

export interface ForgeServiceDeps {
  registry: Registry;
  config: ConfigService;
  clock: Clock;
  logger: Logger;
  /** Replaceable for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** The 409 reason for a failed connection or call. */
export function reasonFor(failure: ForgeFailureReason): string {
  return `forge_${failure}`;
}

/**
 * A pull request's number sent as `forge_issue`, or an issue's as `forge_pull` (decision 215): the
 * request is wrong, not the host, so it is a 400 naming the field and the one that fits.
 */
function wrongKind(field: 'forge_issue' | 'forge_pull', n: number, repo: ForgeRepo): SvcError {
  const [is, not, use, flag] =
    field === 'forge_issue'
      ? ['a pull request', 'an issue', 'forge_pull', '--pull']
      : ['an issue', 'a pull request', 'forge_issue', '--issue'];
  return new SvcError(
    'validation_failed',
    `#${n} of ${repo.full_name} is ${is}, not ${not}: send it as ${use} (svc task create ${flag} ${n})`,
    { field, use },
  );
}

export class ForgeService {
  constructor(private readonly d: ForgeServiceDeps) {}

  /** The forge context: the environment policy applied, argv runs on the injected clock. */
  context(signal?: AbortSignal): ForgeContext {
    const env = resolveEnvironment(this.d.config.current().environment);
    return {
      env,
      signal,
      fetch: this.d.fetch ?? fetch,
      run: async (argv, opts = {}) => {
        const r = await capture({
          argv,
          cwd: tmpdir(),
          env,
          clock: this.d.clock,
          timeoutMs: opts.timeoutMs ?? 60_000,
          signal,
          maxOutputBytes: 32 * 1024 * 1024,
        });
        return { code: r.code, stdout: r.stdout, stderr: r.stderr, spawnError: r.spawnError };
      },
    };
  }

  /** The origin remote as written in the repository's config, or null. */
  async originUrl(project: Pick<Project, 'path'>): Promise<string | null> {
    const r = await gitRaw(project.path, ['config', '--get', 'remote.origin.url']);
    const url = r.stdout.trim();
    return r.code === 0 && url !== '' ? url : null;
  }

  /** Which forge and repository a project's origin names, without connecting. */
  async detect(
    project: Pick<Project, 'path' | 'name'>,
  ): Promise<
    { ok: true; forge: Forge; repo: ForgeRepo } | { ok: false; reason: string; message: string }
  > {
    if (!this.d.config.current().forge.enabled)
      return {
        ok: false,
        reason: 'forge_disabled',
        message: 'forge.enabled is off in the configuration',
      };
    const url = await this.originUrl(project);
    if (!url)
      return {
        ok: false,
        reason: 'forge_not_detected',
        message: `project ${project.name} has no origin remote`,
      };
    const env = resolveEnvironment(this.d.config.current().environment);
    const hits: Array<{ forge: Forge; repo: ForgeRepo }> = [];
    for (const forge of this.d.registry.listForges()) {
      const repo = forge.detect(url, env);
      if (repo) hits.push({ forge, repo });
    }
    if (hits.length === 0)
      return {
        ok: false,
        reason: 'forge_not_detected',
        message: `the origin of project ${project.name} (${url}) is not on a known code host`,
      };
    if (hits.length > 1)
      return {
        ok: false,
        reason: 'forge_ambiguous',
        message: `the origin ${url} is claimed by forges ${hits.map((h) => h.forge.name).join(' and ')}`,
      };
    return { ok: true, ...(hits[0] as { forge: Forge; repo: ForgeRepo }) };
  }

  async resolve(
    project: Pick<Project, 'path' | 'name'>,
    signal?: AbortSignal,
  ): Promise<ForgeResolution> {
    const found = await this.detect(project);
    if (!found.ok) return found;
    if (!found.forge.connect)
      return {
        ok: false,
        reason: 'forge_unsupported',
        message: `forge ${found.forge.name} cannot connect`,
      };
    const conn = await found.forge.connect(found.repo, this.context(signal));
    if (!conn.ok) return { ok: false, reason: reasonFor(conn.reason), message: conn.message };
    return { ok: true, forge: found.forge, repo: found.repo, conn: conn.value };
  }

  private async connected(project: Project): Promise<{ repo: ForgeRepo; conn: ForgeConnection }> {
    const r = await this.resolve(project);
    if (!r.ok) throw new SvcError('invalid_state', r.message, { reason: r.reason });
    return r;
  }

  private refuse(
    field: string,
    what: string,
    failure: { reason: ForgeFailureReason; message: string },
  ): never {
    if (failure.reason === 'not_found')
      throw new SvcError('validation_failed', `${what} not found: ${failure.message}`, { field });
    throw new SvcError('invalid_state', `${what}: ${failure.message}`, {
      reason: reasonFor(failure.reason),
    });
  }

  /** Rule 7: the issue, or 409 with the reason the integration is unusable (400 when it does not exist). */
  async issue(project: Project, n: number): Promise<{ issue: ForgeIssue; repo: ForgeRepo }> {
    const { repo, conn } = await this.connected(project);
    const r = await conn.issue(repo, n);
    if (!r.ok && r.reason === 'wrong_kind') throw wrongKind('forge_issue', n, repo);
    if (!r.ok) this.refuse('forge_issue', `issue #${n} of ${repo.full_name}`, r);
    return { issue: r.value, repo };
  }

  /** Rules 8–9: the pull request and the repository it targets. */
  async pull(project: Project, n: number): Promise<{ pull: ForgePull; repo: ForgeRepo }> {
    const { repo, conn } = await this.connected(project);
    const r = await conn.pull(repo, n);
    if (!r.ok && r.reason === 'wrong_kind') throw wrongKind('forge_pull', n, repo);
    if (!r.ok) this.refuse('forge_pull', `pull request #${n} of ${repo.full_name}`, r);
    return { pull: r.value, repo };
  }
}
