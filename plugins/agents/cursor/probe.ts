import type { AgentProbe, ProbeContext, ProbeOutcome } from '../../../kernel/plugin/index.js';

const PROBE_TIMEOUT_MS = 20_000;

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are control characters
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

/** `2026.08.04-aaa8809`: calver plus commit, kept verbatim (the sha is part of the identity). */
export function parseVersion(outcome: ProbeOutcome): string | null {
  if (outcome.kind !== 'exited' || outcome.code !== 0) return null;
  const text = outcome.stdout.replace(ANSI, '').trim();
  const m = /\d{4}\.\d{2}\.\d{2}(?:-[0-9A-Za-z]+)?/.exec(text);
  if (m) return m[0];
  const first = text.split('\n')[0]?.trim() ?? '';
  return first === '' ? null : first;
}

/** `cursor-agent status`: nonzero exit or "not logged in" → false; "logged in" → true; else unknown. */
export function parseStatus(outcome: ProbeOutcome): boolean | null {
  if (outcome.kind !== 'exited') return null;
  const text = `${outcome.stdout}\n${outcome.stderr}`.replace(ANSI, '');
  if (/not logged in|not authenticated/i.test(text)) return false;
  if (outcome.code !== 0) return false;
  if (/logged in|authenticated/i.test(text)) return true;
  return null;
}

const MODEL_LINE = /^([A-Za-z0-9][A-Za-z0-9._\-[\]=,]*) - \S/;

/** `cursor-agent models`: lines `<id> - <Display Name>` between a heading and a `Tip:` paragraph. */
export function parseModels(stdout: string): string[] {
  const models: string[] = [];
  for (const raw of stdout.replace(ANSI, '').split('\n')) {
    const line = raw.trim();
    if (/^tip:/i.test(line)) break;
    const m = MODEL_LINE.exec(line);
    if (m?.[1] && !models.includes(m[1])) models.push(m[1]);
  }
  return models;
}

export async function probe(ctx: ProbeContext): Promise<AgentProbe> {
  const version = parseVersion(
    await ctx.run({ args: ['--version'], timeout_ms: PROBE_TIMEOUT_MS }),
  );
  const loggedIn = parseStatus(await ctx.run({ args: ['status'], timeout_ms: PROBE_TIMEOUT_MS }));
  // An authenticated network call, account-scoped; its failure only means the curated floor is served.
  const listed = await ctx.run({ args: ['models'], timeout_ms: PROBE_TIMEOUT_MS });
  const models = listed.kind === 'exited' && listed.code === 0 ? parseModels(listed.stdout) : [];
  let probeError: string | null = null;
  if (models.length === 0) {
    probeError =
      listed.kind === 'spawn_failed'
        ? `models: cannot run: ${listed.message}`
        : listed.kind === 'timed_out'
          ? 'models: timed out'
          : `models: ${listed.code === 0 ? 'no models listed' : `exited ${listed.code ?? listed.signal}`}`;
  }
  return {
    version,
    logged_in: loggedIn,
    models: models.length > 0 ? models : null,
    // cursor has no effort setting to list
    efforts: null,
    probe_error: probeError,
  };
}
