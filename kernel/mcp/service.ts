/**
 * The MCP service (SPEC §4.7): serves `/mcp` to clients holding the daemon token and
 * `/mcp/steps/<run>` to agent steps, and hands the agent step its per-step endpoint. Tools are
 * the table in tools/, sessions live in the SessionBook, the per-step credential and URL in
 * step-endpoint.ts. Decisions 120–124.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScopedAuth } from '../http/index.js';
import { effectiveContainer, hostAlias } from '../sandbox/index.js';
import type { Services } from '../services.js';
import { buildServer } from './server.js';
import { SessionBook } from './sessions.js';
import { endpointFor, type StepMcpEndpoint, stepAuth } from './step-endpoint.js';
import type { McpTool, ToolCaller } from './tool.js';
import { builtinTools } from './tools/index.js';

function ownerOf(caller: ToolCaller): string {
  return caller.kind === 'client' ? 'client' : `step:${caller.run_id}`;
}

export class McpService {
  private readonly book: SessionBook;
  /**
   * Runs whose agent step runs restricted (the task's flag or the step's own
   * `permission_mode: restricted`), recorded when the step is wired: their endpoint holds the
   * agent to its restriction (decision 125). Pruned as runs end.
   */
  private readonly restrictedRuns = new Set<number>();
  /** The listener's address once the daemon listens (set by the kernel; null before). */
  address: () => AddressInfo | string | null = () => null;

  constructor(private readonly s: Services) {
    this.book = new SessionBook(s.clock, (owner) => {
      if (owner === 'client') return true;
      return this.liveRun(Number(owner.slice('step:'.length))) !== null;
    });
  }

  /** Every tool (tools/index.ts). */
  get tools(): readonly McpTool[] {
    return builtinTools;
  }

  get sessionCount(): number {
    return this.book.size;
  }

  /** Hands one HTTP request of `/mcp` or `/mcp/steps/<run>` to its session. */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    caller: ToolCaller,
  ): Promise<void> {
    await this.book.handle(req, res, body, ownerOf(caller), () =>
      buildServer({
        version: this.s.daemon.version,
        tools: this.tools,
        logger: this.s.logger,
        context: { s: this.s, caller },
      }),
    );
  }

  liveRun(runId: number): { task_id: number } | null {
    const row = this.s.engine.runs.get(runId);
    return row && row.state === 'running' ? { task_id: row.task_id } : null;
  }

  /** Whether a live run's agent is held to a restriction: its task's flag, or its step's mode. */
  runRestricted(runId: number, taskId: number): boolean {
    return this.restrictedRuns.has(runId) || this.s.engine.tasks.get(taskId)?.restricted === 1;
  }

  /** The Host guard and credential of the per-step paths, for the app's front door. */
  get stepAuth(): ScopedAuth {
    return stepAuth({ daemonToken: this.s.daemon.token, liveRun: (id) => this.liveRun(id) });
  }

  /**
   * The endpoint an agent step attempt wires into its CLI (the seam the agent step calls), or
   * null when `mcp.wire_steps` is off or the daemon does not listen. Throws when the run is not
   * one of the task's: a caller bug, never a user error.
   */
  endpointFor(
    taskId: number,
    runId: number,
    opts: { restricted?: boolean } = {},
  ): StepMcpEndpoint | null {
    const config = this.s.config.current();
    if (!config.mcp.wire_steps) return null;
    const run = this.s.engine.runs.get(runId);
    if (!run || run.task_id !== taskId)
      throw new Error(`step run ${runId} is not a run of task ${taskId}`);
    // A new attempt is a good moment to close sessions of steps that have ended.
    void this.book.sweep();
    for (const id of this.restrictedRuns)
      if (this.liveRun(id) === null) this.restrictedRuns.delete(id);
    if (opts.restricted === true) this.restrictedRuns.add(runId);
    return endpointFor({
      baseUrl: this.baseUrl(),
      daemonToken: this.s.daemon.token,
      runId,
      hostAlias: this.aliasOf(taskId),
    });
  }

  private baseUrl(): string | null {
    const a = this.address();
    if (a === null || typeof a === 'string') return null;
    const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    return `http://${host}:${a.port}`;
  }

  /** The host alias of the task's container (its snapshot's defaults over the config), or null. */
  private aliasOf(taskId: number): string | null {
    const task = this.s.engine.tasks.get(taskId);
    const defaults = task
      ? (JSON.parse(task.workflow_snapshot) as { defaults?: Record<string, unknown> }).defaults
      : undefined;
    const container = effectiveContainer(this.s.config.current(), defaults);
    return container ? hostAlias(container.runtime) : null;
  }

  async closeAll(): Promise<void> {
    await this.book.closeAll();
  }
}
