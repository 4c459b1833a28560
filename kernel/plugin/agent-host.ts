/**
 * What the agent step type needs from the kernel at run time, found at `StepContext.agents` (the
 * kernel's agents service implements it, decision 040; a typed member, decision 224). It is a
 * plugin-side contract so the step plugin imports only this door; everything with state (the
 * probe cache, quota, step-run rows) stays in the kernel. It names the attempt it serves as an
 * `AttemptView`, not the StepContext that carries it, so neither file imports the other.
 */
import type { AgentAdapter, QuotaWindow, UsageTotals } from './agent.js';
import type { AttemptView } from './step-view.js';

/** An installed CLI ready to run, or why there is none (the step then fails `agent_unavailable`). */
export type LocatedAgent =
  | { ok: true; path: string; version: string | null }
  | { ok: false; message: string };

/** The MCP endpoint one step may reach (issue 9 fills the seam; null: no wiring). */
export interface StepMcpEndpoint {
  url: string;
  bearer_token: string;
}

/** A CLI session a run may continue (a follow-up prompt, decision 044). */
export interface ContinuableSession {
  session_id: string;
  /** The session's cumulative counts after that run, for CLIs that report cumulative usage. */
  totals: UsageTotals | null;
}

/** What `agent`/`model`/`effort` resolve to for one step, and where each came from (SPEC §4.3). */
export interface ResolvedAgentValues {
  agent: { value: string; source: AgentValueSource };
  model: { value: string; source: AgentValueSource };
  effort: { value: string; source: AgentValueSource };
}

export type AgentValueSource = 'step' | 'task' | 'workflow' | 'adapter';

export interface AgentHost {
  adapter(name: string): AgentAdapter | undefined;
  /**
   * Resolves agent, model and effort for a step of a task: step, task override, the defaults an
   * include carried in, the workflow's `defaults`, then the adapter's default (SPEC §2.8, §4.3).
   */
  resolve(
    step: Readonly<Record<string, unknown>>,
    ctx: Pick<AttemptView, 'task' | 'setting'>,
  ): ResolvedAgentValues;
  /** The binary to run and its probed version; probes on a cold cache, never on a warm one. */
  locate(name: string): Promise<LocatedAgent>;
  /** The daemon's clock (milliseconds): reset times are judged against it, not the wall. */
  now(): number;
  /** `debug: true` in the config: record the resolved run in the transcript (SPEC §2.10). */
  debug(): boolean;
  /** The daemon runs as root (some CLIs refuse unattended modes unless told it is a sandbox). */
  readonly isRoot: boolean;
  /**
   * The per-step MCP endpoint (SPEC §4.7, `mcp.wire_steps`). The seam issue 9 fills: until then it
   * answers null and no run is wired. Called once per attempt, after the plan's refusals.
   */
  mcpFor(ctx: AttemptView, agent: string): Promise<StepMcpEndpoint | null>;
  /** The latest session of `agent` in this task, for a follow-up prompt to continue; null: none. */
  sessionToContinue(taskId: number, agent: string): ContinuableSession | null;
  /** Writes agent, model and effort on the attempt's row as soon as they are known (null: the CLI decides). */
  recordRun(
    runId: number,
    fields: { agent: string; model: string | null; effort: string | null },
  ): void;
  /** Keeps the session's cumulative counts beside the row, for the next continuation. */
  recordSessionTotals(runId: number, totals: UsageTotals): void;
  /**
   * A usage-limit stop (SPEC §2.4 observation): `resetsAt` RFC 3339 when the CLI named it. Returns
   * the `usage_limit_auto_continue` mode this adapter's stops follow (decision 043).
   */
  usageLimited(
    agent: string,
    resetsAt: string | null,
    message: string,
  ): 'always' | 'reported_only' | 'never';
  /** A successful step on this adapter: its usage-limit observation is deleted (SPEC §2.4). */
  succeeded(agent: string): void;
  /** A reading seen for free in the stream (claude's rate-limit windows). */
  quotaSeen(agent: string, source: string, windows: QuotaWindow[]): void;
}
