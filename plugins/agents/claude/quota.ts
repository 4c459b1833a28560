import { z } from 'zod';
import type { AgentQuotaSource, QuotaPush } from '../../../kernel/plugin/index.js';

export const QUOTA_SOURCE = 'claude_status_line';

const Rfc3339 = z.iso.datetime({ offset: true });

/** SPEC §4.1 push body: `{source, windows[]}`, at least one window, `resets_at` omitted rather than zero. */
export const QuotaPushSchema = z.object({
  source: z.literal(QUOTA_SOURCE),
  windows: z
    .array(
      z.object({
        name: z.string().min(1),
        used_percent: z.number().min(0),
        window: z.string().nullable().default(null),
        resets_at: Rfc3339.optional(),
      }),
    )
    .min(1),
});

/** What Claude Code's `statusLine` command receives on stdin (subscription logins only carry `rate_limits`). */
const StatusLineSchema = z.object({
  rate_limits: z.record(
    z.string(),
    z.object({ used_percentage: z.number().min(0), resets_at: z.number().optional() }),
  ),
});

const WINDOW_LABELS: Record<string, string> = { five_hour: '5h', seven_day: '7d' };

/**
 * Validates a push body. As a convenience the raw status-line document is accepted too, so a
 * status-line script can forward its stdin unchanged (decision 115).
 */
export function parsePush(
  body: unknown,
): { ok: true; push: QuotaPush } | { ok: false; issues: string[] } {
  const push = QuotaPushSchema.safeParse(body);
  if (push.success) {
    return {
      ok: true,
      push: {
        source: push.data.source,
        windows: push.data.windows.map((w) => ({
          name: w.name,
          used_percent: w.used_percent,
          window: w.window,
          ...(w.resets_at !== undefined && { resets_at: new Date(w.resets_at).toISOString() }),
        })),
      },
    };
  }
  const status = StatusLineSchema.safeParse(body);
  if (status.success && Object.keys(status.data.rate_limits).length > 0) {
    return {
      ok: true,
      push: {
        source: QUOTA_SOURCE,
        windows: Object.entries(status.data.rate_limits).map(([name, w]) => ({
          name,
          used_percent: w.used_percentage,
          window: WINDOW_LABELS[name] ?? null,
          ...(w.resets_at !== undefined && {
            resets_at: new Date(w.resets_at * 1000).toISOString(),
          }),
        })),
      },
    };
  }
  return {
    ok: false,
    issues: push.error.issues.map((i) => `${i.path.map(String).join('.') || 'body'}: ${i.message}`),
  };
}

export const quotaSource: AgentQuotaSource = { kind: 'push', source: QUOTA_SOURCE, parsePush };
