/** Who calls a tool and with what: apart from tool.ts so the restriction check (restricted.ts) can read them. */
import type { Services } from '../services.js';

/**
 * Who is calling: a client holding the daemon token, or an agent step on its per-step endpoint;
 * `restricted` when that step's agent runs restricted (decision 125).
 */
export type ToolCaller =
  | { kind: 'client' }
  | { kind: 'step'; task_id: number; run_id: number; restricted: boolean };

export interface ToolContext {
  s: Services;
  caller: ToolCaller;
  /** Aborts when the client cancels the call or goes away (a diff's git then stops). */
  signal?: AbortSignal;
}

/** The ids of one call: numbers for integer ids, strings for names. */
export type ToolIds = Record<string, number | string>;
