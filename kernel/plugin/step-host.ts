/**
 * What the kernel's other rooms lend a step at run time (decision 224): the agents service, the
 * per-step MCP endpoint, the clock. Each is a typed member of the StepContext, never an untyped
 * bag a step casts from. The engine is built before the rooms that fill the host (the agents
 * service, the MCP server), so `StepHost` members are optional there; an attempt hands `null`
 * for a host this daemon has not wired, and a step that needs it fails saying so.
 */
import type { AgentHost, StepMcpEndpoint } from './agent-host.js';

/** The MCP server's seam for steps (SPEC §4.7, decision 122). */
export interface StepMcpHost {
  /**
   * The per-step endpoint of one attempt of a task: its URL and the bearer token scoped to that
   * run, or null when `mcp.wire_steps` is off (or the daemon does not listen): wire nothing.
   */
  endpointFor(taskId: number, runId: number): StepMcpEndpoint | null;
}

/** The daemon's clock, read-only: a step judges time against it, never against the wall. */
export interface StepClock {
  /** Milliseconds since the epoch, as the injected clock says. */
  now(): number;
}

/** The hosts the kernel wires into the engine once their rooms exist (kernel.ts). */
export interface StepHost {
  agents?: AgentHost;
  mcp?: StepMcpHost;
}
