import type { AgentProbe, ProbeContext, ProbeOutcome } from '../../../kernel/plugin/index.js';
import { inWindow, isRecord, parseLine, semver, str } from '../../../kernel/plugin/index.js';
import { LOGGED_IN_PROBE_WINDOW } from './traits.js';

const VERSION_TIMEOUT_MS = 20_000;
const AUTH_TIMEOUT_MS = 20_000;
const OPTIONS_TIMEOUT_MS = 25_000;

/** Environment for every probe: no telemetry or update check from a process we start. */
export const PROBE_ENV = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
};

/** `2.1.330 (Claude Code)` → `2.1.330`; unparseable text is kept raw (then no version gate opens). */
export function parseVersion(outcome: ProbeOutcome): string | null {
  if (outcome.kind !== 'exited' || outcome.code !== 0) return null;
  const v = semver(outcome.stdout);
  if (v) return v.join('.');
  const raw = outcome.stdout.trim();
  return raw === '' ? null : raw;
}

/**
 * `claude auth status` prints JSON and exits 0 when logged in, 1 when not. `loggedIn: true` means
 * credentials are configured (an `ANTHROPIC_API_KEY` counts), not that they work.
 */
export function parseAuthStatus(outcome: ProbeOutcome): boolean | null {
  if (outcome.kind !== 'exited') return null;
  const doc = parseLine(outcome.stdout.replace(/\s*\n\s*/g, ' '));
  if (doc && typeof doc.loggedIn === 'boolean') return doc.loggedIn;
  if (/not logged in/i.test(outcome.stdout)) return false;
  if (outcome.code === 0 && /logged in/i.test(outcome.stdout)) return true;
  return null;
}

export const LIST_MODELS_REQUEST_ID = 'svc-list-models';

/** The `list_models` control request: no model call, works offline with any auth. */
export const LIST_MODELS_LINE = `${JSON.stringify({
  type: 'control_request',
  request_id: LIST_MODELS_REQUEST_ID,
  request: { subtype: 'list_models' },
})}\n`;

export const CONTROL_ARGS = [
  '-p',
  '--output-format',
  'stream-json',
  '--verbose',
  '--input-format',
  'stream-json',
];

/** Finds the `control_response` to `requestId` in stream-json stdout. */
export function findControlResponse(stdout: string, requestId: string): unknown {
  for (const line of stdout.split('\n')) {
    const obj = parseLine(line);
    if (obj?.type !== 'control_response' || !isRecord(obj.response)) continue;
    if (obj.response.request_id !== requestId) continue;
    if (obj.response.subtype !== 'success') return undefined;
    return obj.response.response;
  }
  return undefined;
}

/** `response.models[]`: `value` is what `--model` takes; efforts are the union of `supportedEffortLevels`. */
export function parseModelList(
  stdout: string,
): { models: string[]; efforts: string[] } | undefined {
  const response = findControlResponse(stdout, LIST_MODELS_REQUEST_ID);
  if (!isRecord(response) || !Array.isArray(response.models)) return undefined;
  const models: string[] = [];
  const efforts: string[] = [];
  for (const m of response.models) {
    if (!isRecord(m)) continue;
    const value = str(m.value);
    if (value && !models.includes(value)) models.push(value);
    if (Array.isArray(m.supportedEffortLevels)) {
      for (const e of m.supportedEffortLevels) {
        if (typeof e === 'string' && !efforts.includes(e)) efforts.push(e);
      }
    }
  }
  return models.length > 0 ? { models, efforts } : undefined;
}

function describe(outcome: ProbeOutcome): string {
  if (outcome.kind === 'spawn_failed') return `cannot run: ${outcome.message}`;
  if (outcome.kind === 'timed_out') return 'timed out';
  const firstErr = outcome.stderr.split('\n').find((l) => l.trim() !== '') ?? '';
  return `exited ${outcome.code ?? outcome.signal}${firstErr ? `: ${firstErr.slice(0, 200)}` : ''}`;
}

export async function probe(ctx: ProbeContext): Promise<AgentProbe> {
  const versionOut = await ctx.run({
    args: ['--version'],
    timeout_ms: VERSION_TIMEOUT_MS,
    env: PROBE_ENV,
  });
  const version = parseVersion(versionOut);

  // Only builds in the window are asked; others (and an unknown version) answer null, never a guess.
  let loggedIn: boolean | null = null;
  if (inWindow(version, LOGGED_IN_PROBE_WINDOW.min, LOGGED_IN_PROBE_WINDOW.below)) {
    loggedIn = parseAuthStatus(
      await ctx.run({ args: ['auth', 'status'], timeout_ms: AUTH_TIMEOUT_MS, env: PROBE_ENV }),
    );
  }

  const optionsOut = await ctx.run({
    args: CONTROL_ARGS,
    timeout_ms: OPTIONS_TIMEOUT_MS,
    stdin: LIST_MODELS_LINE,
    // Any line naming our request id is its control_response (success or error).
    until: (stdout) => stdout.includes(LIST_MODELS_REQUEST_ID),
    env: PROBE_ENV,
  });
  const options =
    optionsOut.kind === 'exited' || optionsOut.kind === 'timed_out'
      ? parseModelList(optionsOut.stdout)
      : undefined;

  return {
    version,
    logged_in: loggedIn,
    models: options?.models ?? null,
    efforts: options && options.efforts.length > 0 ? options.efforts : null,
    probe_error: options ? null : `list_models: ${describe(optionsOut)}`,
  };
}
