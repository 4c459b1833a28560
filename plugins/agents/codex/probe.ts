import type { AgentProbe, ProbeContext, ProbeOutcome } from '../../../kernel/plugin/index.js';
import { isRecord, semver, str } from '../../../kernel/plugin/index.js';
import { callAppServer } from './app-server.js';

const VERSION_TIMEOUT_MS = 20_000;
const LOGIN_TIMEOUT_MS = 20_000;

/** `codex-cli 0.169.0` on stdout (stderr may carry a PATH-alias warning; it is not read). */
export function parseVersion(outcome: ProbeOutcome): string | null {
  if (outcome.kind !== 'exited' || outcome.code !== 0) return null;
  const v = semver(outcome.stdout);
  if (v) return v.join('.');
  const raw = outcome.stdout.trim();
  return raw === '' ? null : raw;
}

/**
 * `codex login status`: `Not logged in` + exit 1; `Logged in using ChatGPT`; with a stored key,
 * `API key configured - ***` (0.169.0, no "logged in" in it). A timed-out probe is never read as
 * logged out (on Windows a killed probe exits 1). Keys only in the environment are not seen.
 */
export function parseLoginStatus(outcome: ProbeOutcome): boolean | null {
  if (outcome.kind !== 'exited') return null;
  const text = `${outcome.stdout}\n${outcome.stderr}`;
  if (/not logged in|not authenticated/i.test(text)) return false;
  if (outcome.code !== 0) return false;
  if (/logged in|api key configured|authenticated/i.test(text)) return true;
  return null;
}

/** `model/list` → ids of the visible models and the union of their reasoning efforts. */
export function parseModelList(
  result: unknown,
): { models: string[]; efforts: string[] } | undefined {
  if (!isRecord(result) || !Array.isArray(result.data)) return undefined;
  const models: string[] = [];
  const efforts: string[] = [];
  for (const m of result.data) {
    if (!isRecord(m) || m.hidden === true) continue;
    const id = str(m.id) ?? str(m.model);
    if (id && !models.includes(id)) models.push(id);
    if (Array.isArray(m.supportedReasoningEfforts)) {
      for (const e of m.supportedReasoningEfforts) {
        const v = isRecord(e) ? str(e.reasoningEffort) : str(e);
        if (v && !efforts.includes(v)) efforts.push(v);
      }
    }
  }
  return models.length > 0 ? { models, efforts } : undefined;
}

export async function probe(ctx: ProbeContext): Promise<AgentProbe> {
  const version = parseVersion(
    await ctx.run({ args: ['--version'], timeout_ms: VERSION_TIMEOUT_MS }),
  );
  const loggedIn = parseLoginStatus(
    await ctx.run({ args: ['login', 'status'], timeout_ms: LOGIN_TIMEOUT_MS }),
  );
  const listed = await callAppServer(ctx, 'model/list', {});
  let options: { models: string[]; efforts: string[] } | undefined;
  let probeError: string | null = null;
  if ('failed' in listed) probeError = `model/list: ${listed.failed}`;
  else if ('error' in listed.reply) probeError = `model/list: ${listed.reply.error.message}`;
  else {
    options = parseModelList(listed.reply.result);
    if (!options) probeError = 'model/list: no models in the answer';
  }
  return {
    version,
    logged_in: loggedIn,
    models: options?.models ?? null,
    efforts: options && options.efforts.length > 0 ? options.efforts : null,
    probe_error: probeError,
  };
}
