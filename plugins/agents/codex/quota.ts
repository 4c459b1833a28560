import type {
  AgentQuotaSource,
  ProbeContext,
  QuotaReading,
  QuotaWindow,
} from '../../../kernel/plugin/index.js';
import { isRecord, type Json, num, str } from '../../../kernel/plugin/index.js';
import { callAppServer } from './app-server.js';

export const QUOTA_SOURCE = 'codex_app_server';

/** 300 → `5h`, 10080 → `7d`: a duration label for the window length in minutes. */
export function windowLabel(minutes: number | undefined): string | null {
  if (minutes === undefined || minutes <= 0) return null;
  if (minutes % 1440 === 0) return `${minutes / 1440}d`;
  if (minutes % 60 === 0) return `${minutes / 60}h`;
  return `${minutes}m`;
}

function windowOf(name: string, w: unknown): QuotaWindow | undefined {
  if (!isRecord(w)) return undefined;
  const used = num(w.usedPercent);
  if (used === undefined) return undefined;
  const resetsAt = num(w.resetsAt);
  return {
    name,
    used_percent: used,
    window: windowLabel(num(w.windowDurationMins)),
    ...(resetsAt !== undefined && { resets_at: new Date(resetsAt * 1000).toISOString() }),
  };
}

/**
 * `account/rateLimits/read` → windows. Names keep the source's vocabulary (`primary`,
 * `secondary`); with several limit ids each is prefixed (`codex.primary`).
 */
export function parseRateLimits(result: unknown): QuotaWindow[] {
  if (!isRecord(result)) return [];
  const byId: [string, Json][] = [];
  if (isRecord(result.rateLimitsByLimitId)) {
    for (const [id, snap] of Object.entries(result.rateLimitsByLimitId))
      if (isRecord(snap)) byId.push([id, snap]);
  }
  if (byId.length === 0 && isRecord(result.rateLimits)) {
    byId.push([str(result.rateLimits.limitId) ?? 'codex', result.rateLimits]);
  }
  const prefix = byId.length > 1;
  const out: QuotaWindow[] = [];
  for (const [id, snap] of byId) {
    for (const key of ['primary', 'secondary'] as const) {
      const w = windowOf(prefix ? `${id}.${key}` : key, snap[key]);
      if (w) out.push(w);
    }
  }
  return out;
}

export async function readQuota(ctx: ProbeContext): Promise<QuotaReading> {
  const answer = await callAppServer(ctx, 'account/rateLimits/read');
  if ('failed' in answer) return { kind: 'error', message: answer.failed };
  if ('error' in answer.reply) {
    // Without a ChatGPT login the server says so: a definite "no reading", not a failure.
    const { message } = answer.reply.error;
    return /authentication required|not logged in|login/i.test(message)
      ? { kind: 'none', detail: message }
      : { kind: 'error', message };
  }
  const windows = parseRateLimits(answer.reply.result);
  return windows.length > 0
    ? { kind: 'reading', windows }
    : { kind: 'none', detail: 'no rate-limit windows reported' };
}

export const quotaSource: AgentQuotaSource = {
  kind: 'pull',
  source: QUOTA_SOURCE,
  read: readQuota,
};
