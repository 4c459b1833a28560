/**
 * Per-step MCP endpoints (SPEC §4.7, §2.10 `mcp.wire_steps`; decision 122). Each agent step
 * attempt gets `/mcp/steps/<run id>` with its own bearer token, so a call identifies the calling
 * task without trusting anything the agent says. The token is an HMAC of the run id under the
 * daemon token: nothing is stored, it opens that one path only, and only while the run is
 * running, so it dies with the step. Inside a container the URL names the runtime's host alias,
 * which the Host guard accepts on these paths alone.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { SvcError } from '../errors.js';
import type { ScopedAuth } from '../http/index.js';
import { hostAlias } from '../sandbox/index.js';

export const STEP_PATH_PREFIX = '/mcp/steps/';

/** The names a container reaches the host by, one per runtime (SPEC §2.10, decision 019). */
export const HOST_ALIASES: readonly string[] = [hostAlias('docker'), hostAlias('podman')];

/** What the agent step hands its adapter (`AgentRunSpec.mcp`). */
export interface StepMcpEndpoint {
  url: string;
  bearer_token: string;
}

export function stepToken(daemonToken: string, runId: number): string {
  return createHmac('sha256', daemonToken).update(`svc-mcp-step:${runId}`).digest('base64url');
}

/** The run id of a per-step path, or null when the path is not one. */
export function runIdOf(path: string): number | null {
  const m = /^\/mcp\/steps\/([1-9]\d{0,15})\/?$/.exec(path);
  return m ? Number(m[1]) : null;
}

function bearer(req: FastifyRequest): string {
  return /^Bearer ([^\s]+)\s*$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
}

export interface StepAuthDeps {
  daemonToken: string;
  /** The task of a run that is running now, or null (no such run, or it ended). */
  liveRun(runId: number): { task_id: number } | null;
}

/** The Host guard and credential of the per-step paths (the daemon token does not open them). */
export function stepAuth(d: StepAuthDeps): ScopedAuth {
  return {
    matches: (path) => path.startsWith(STEP_PATH_PREFIX) || path === '/mcp/steps',
    hosts: HOST_ALIASES,
    check: (req) => {
      const runId = runIdOf(req.url.split('?')[0] ?? '');
      const given = Buffer.from(bearer(req));
      const expected = Buffer.from(runId === null ? '' : stepToken(d.daemonToken, runId));
      const ok =
        runId !== null && given.length === expected.length && timingSafeEqual(given, expected);
      if (!ok) throw new SvcError('unauthorized', 'missing or invalid bearer token');
      if (!d.liveRun(runId))
        throw new SvcError(
          'unauthorized',
          `the MCP endpoint of step run ${runId} is closed: that step is not running`,
        );
    },
  };
}

export interface EndpointInput {
  /** `http://127.0.0.1:<port>` of the listener, or null when the daemon does not listen. */
  baseUrl: string | null;
  daemonToken: string;
  runId: number;
  /** The host alias of the task's container runtime; null on the host. */
  hostAlias: string | null;
}

export function endpointFor(i: EndpointInput): StepMcpEndpoint | null {
  if (i.baseUrl === null) return null;
  const url = new URL(i.baseUrl);
  if (i.hostAlias !== null) url.hostname = i.hostAlias;
  url.pathname = `${STEP_PATH_PREFIX}${i.runId}`;
  return { url: url.toString(), bearer_token: stepToken(i.daemonToken, i.runId) };
}
