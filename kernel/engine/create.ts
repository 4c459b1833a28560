/**
 * Task creation (SPEC §4.4 create rules 1–10, §8 bounds). Everything is validated before the
 * insert; the insert, the idempotency key and the `task.created` event share one transaction, so a
 * refusal leaves nothing behind and a replay finds either nothing or the whole task. A forge
 * reference (rules 7–9) makes exactly one code-host lookup and no git call (forge.ts).
 */
import { createHash } from 'node:crypto';
import { type Clock, formatMs } from '../clock/index.js';
import type { ConfigService } from '../config/index.js';
import { SvcError } from '../errors.js';
import type { EventLog } from '../events/index.js';
import { branchExists, remoteTrackingBranch } from '../git/index.js';
import { runsAgent, type StepTypes } from '../plugin/index.js';
import type { Project, ProjectService } from '../projects/index.js';
import { effectiveContainer, runtimeProblem } from '../sandbox/index.js';
import { newTask, type Store, type TaskRow, type TasksTable } from '../store/index.js';
import { branchFor } from './branch.js';
import { forgePrefill } from './forge.js';
import { everyStep, type WorkflowSnapshot } from './model.js';
import type { AgentPort, ForgePort, WorkflowPort } from './ports.js';
import { unusedPromptWarning } from './prompt.js';
import type { CreateTask } from './schema.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const TASK_CREATE_ROUTE = 'POST /v1/tasks';

export interface CreateDeps {
  store: Store;
  tasks: TasksTable;
  projects: ProjectService;
  events: EventLog;
  clock: Clock;
  config: ConfigService;
  workflows: WorkflowPort;
  agents: AgentPort;
  /** The step types, asked which steps run an agent (decision 225). */
  registry: StepTypes;
  /** The code host for `forge_issue` / `forge_pull`; absent means every reference is 409. */
  forge?: ForgePort;
  /** Branches held by open chats of a project (chats add this); a task never shares one. */
  chatClaim?(projectId: number, branch: string, exceptChat?: number): number | null;
}

/**
 * A chat's hand-off (SPEC §4.5): the task takes over the chat's worktree as it is (its branch is
 * the chat's, so neither the git existence check nor the chat's own claim refuses it), records
 * `source_chat_id`, and `inTx` writes the chat's side inside the task's transaction.
 */
export interface HandoffSpec {
  chat_id: number;
  worktree_path: string;
  inTx(taskId: number): void;
}

export interface CreateOptions {
  idempotencyKey?: string;
  /** How the task arrived (`api`, `mcp`, …), recorded as `created_via`. */
  via?: string;
  /**
   * The task whose agent step asks, through its per-step MCP endpoint (SPEC §2.10
   * `mcp.max_depth`, `mcp.max_tasks`; decision 123). The new task is recorded as its creation and
   * both bounds are checked in the insert's transaction.
   */
  mcpCaller?: number;
  /** A chat's hand-off: the task takes over the chat's branch and worktree (SPEC §4.5). */
  handoff?: HandoffSpec;
}

/** Where a task created by `callerId` sits in its MCP chain, or the 400 naming the bound it passes. */
export function mcpPlacement(
  tasks: TasksTable,
  db: Store['db'],
  callerId: number,
  bounds: { max_depth: number; max_tasks: number },
): { created_by_task_id: number; mcp_origin_task_id: number; mcp_depth: number } {
  const caller = tasks.get(callerId);
  if (!caller) throw new SvcError('not_found', `task ${callerId} not found`);
  // A lane belongs to its fan-out root's place in the chain: lanes are not MCP links.
  const place = caller.root_task_id !== null ? (tasks.get(caller.root_task_id) ?? caller) : caller;
  const depth = place.mcp_depth + 1;
  const origin = place.mcp_origin_task_id ?? place.id;
  if (depth > bounds.max_depth) {
    throw new SvcError(
      'validation_failed',
      `a task created through MCP by task ${callerId} would be ${depth} links from task ${origin}, past mcp.max_depth (${bounds.max_depth})`,
      { field: 'mcp.max_depth', limit: bounds.max_depth },
    );
  }
  const made = (
    db.prepare('SELECT COUNT(*) AS n FROM tasks WHERE mcp_origin_task_id = ?').get(origin) as {
      n: number;
    }
  ).n;
  if (made + 1 > bounds.max_tasks) {
    throw new SvcError(
      'validation_failed',
      `task ${origin}'s MCP chain already holds ${made} tasks created through MCP, the mcp.max_tasks bound (${bounds.max_tasks})`,
      { field: 'mcp.max_tasks', limit: bounds.max_tasks },
    );
  }
  return { created_by_task_id: callerId, mcp_origin_task_id: origin, mcp_depth: depth };
}

export interface CreateResult {
  task: TaskRow;
  warnings: string[];
  /** True when an Idempotency-Key replay answered with an existing task. */
  replayed: boolean;
}

/** The id the next task insert will take (AUTOINCREMENT never reuses one); branch names carry it. */
export function nextTaskId(store: Store): number {
  const row = store.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'tasks'").get() as
    | { seq: number }
    | undefined;
  return (row?.seq ?? 0) + 1;
}

/** Canonical JSON with sorted keys: reformatting or key order never changes the digest. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export function bodyDigest(body: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(body)).digest('hex')}`;
}

export function checkIdempotencyKey(key: string): void {
  if (key.length === 0 || Buffer.byteLength(key) > 255 || !/^[\x20-\x7e]+$/.test(key)) {
    throw new SvcError(
      'validation_failed',
      'Idempotency-Key must be 1 to 255 bytes of printable ASCII',
      { field: 'Idempotency-Key' },
    );
  }
}

export class TaskCreator {
  constructor(private readonly d: CreateDeps) {}

  private lookupKey(key: string, digest: string): TaskRow | null {
    const row = this.d.store.db
      .prepare(
        'SELECT digest, task_id, created_at FROM idempotency_keys WHERE route = ? AND key = ?',
      )
      .get(TASK_CREATE_ROUTE, key) as
      | { digest: string; task_id: number | null; created_at: string }
      | undefined;
    if (!row) return null;
    if (Date.parse(row.created_at) + IDEMPOTENCY_TTL_MS <= this.d.clock.now()) {
      this.d.store.db
        .prepare('DELETE FROM idempotency_keys WHERE route = ? AND key = ?')
        .run(TASK_CREATE_ROUTE, key);
      return null;
    }
    if (row.digest !== digest) {
      throw new SvcError('invalid_state', 'this Idempotency-Key was used with a different body', {
        reason: 'idempotency_key_reused',
      });
    }
    const task = row.task_id !== null ? this.d.tasks.get(row.task_id) : undefined;
    if (!task) {
      this.d.store.db
        .prepare('DELETE FROM idempotency_keys WHERE route = ? AND key = ?')
        .run(TASK_CREATE_ROUTE, key);
      return null;
    }
    return task;
  }

  /** SPEC §2.10 container conditions judged at creation: the host OS, the runtime, network vs MCP wiring. */
  private async checkContainer(snapshot: WorkflowSnapshot, project: Project): Promise<void> {
    const config = this.d.config.current();
    const container = effectiveContainer(config, snapshot.defaults);
    if (!container) return;
    if (process.platform === 'win32') {
      throw new SvcError(
        'validation_failed',
        'a Windows daemon cannot run containerized tasks; set container.image to "" to run on the host',
        { field: 'container.image' },
      );
    }
    const problem = await runtimeProblem(container.runtime);
    if (problem) throw new SvcError('validation_failed', problem, { field: 'container.runtime' });
    if (!container.network && config.mcp.wire_steps) {
      const steps = everyStep(snapshot.steps, (name) => {
        try {
          return this.d.workflows.forTask(name, project).snapshot.steps;
        } catch {
          return null;
        }
      });
      if (steps.some((s) => runsAgent(this.d.registry, s.type))) {
        throw new SvcError(
          'validation_failed',
          `workflow ${snapshot.name} has agent steps, which need the network to reach their MCP endpoint: set container.network: true or mcp.wire_steps: false`,
          { field: 'workflow' },
        );
      }
    }
  }

  async create(body: CreateTask, opts: CreateOptions = {}): Promise<CreateResult> {
    const { d } = this;
    let digest = '';
    if (opts.idempotencyKey !== undefined) {
      checkIdempotencyKey(opts.idempotencyKey);
      digest = bodyDigest(body);
      const existing = this.lookupKey(opts.idempotencyKey, digest);
      if (existing) return { task: existing, warnings: [], replayed: true };
    }
    const project = d.projects.requireField(body.project_id);
    if (body.forge_issue !== undefined && body.forge_pull !== undefined) {
      throw new SvcError('validation_failed', 'give forge_issue or forge_pull, not both', {
        field: 'forge_pull',
      });
    }
    // Rules 7–9: one code-host lookup when (and only when) the request names an issue or a pull.
    const prefill = await forgePrefill(d.forge, project, body, opts.via);
    const title = prefill.title;
    if (title.trim() === '')
      throw new SvcError('validation_failed', 'title is required and must not be blank', {
        field: 'title',
      });

    const workflowName = body.workflow ?? project.default_workflow ?? 'adhoc';
    const wf = d.workflows.forTask(workflowName, project);
    const fields = d.workflows.checkFields(wf.snapshot, prefill.fields(wf.snapshot));
    if (!fields.ok)
      // `field` is already the finding's path (`fields.issue`).
      throw new SvcError('validation_failed', fields.message, { field: fields.field || 'fields' });

    await this.checkContainer(wf.snapshot, project);
    const baseBranch = body.base_branch ?? prefill.baseBranch ?? project.default_branch;
    // A pull request's task runs no git at creation: its head is fetched at admission (rule 9).
    const baseWarnings: string[] = [];
    if (!prefill.pull && !(await branchExists(project.path, baseBranch))) {
      // Only on a remote (a colleague's pushed branch): accepted, fetched at admission (decision 205).
      const remote = await remoteTrackingBranch(project.path, baseBranch);
      if (!remote) {
        const hint = /^[^/]+\/.+/.test(baseBranch)
          ? `; for a remote's branch give its name without the remote (${baseBranch.replace(/^[^/]+\//, '')})`
          : '';
        throw new SvcError(
          'validation_failed',
          `base_branch ${baseBranch} is not a branch of ${project.name}, locally or on a remote${hint}`,
          { field: 'base_branch' },
        );
      }
      baseWarnings.push(
        `base_branch ${baseBranch} is not a local branch of ${project.name}; it exists as ${remote.remote}/${baseBranch}, which is fetched and checked out as ${baseBranch} (tracking it) when the task starts`,
      );
    }
    const agentWarnings = d.agents.checkTask(
      wf.snapshot,
      { agent: body.agent, model: body.model, effort: body.effort },
      body.restricted === true,
    );
    const literal = prefill.branch ?? body.branch_name?.trim();
    if (!prefill.pull && !opts.handoff && literal && (await branchExists(project.path, literal))) {
      throw new SvcError(
        'validation_failed',
        `branch ${literal} already exists in ${project.name}`,
        { field: 'branch_name' },
      );
    }

    const config = d.config.current();
    const now = formatMs(d.clock.now());
    const task = d.store.tx(() => {
      if (opts.idempotencyKey !== undefined) {
        const existing = this.lookupKey(opts.idempotencyKey, digest);
        if (existing) return { existing };
      }
      const nextId = nextTaskId(d.store);
      const branch = branchFor({
        id: nextId,
        title,
        baseBranch,
        fields: fields.fields,
        project,
        literal,
        configTemplate: config.branch_template,
      });
      const claim = d.tasks.claimOf(project.id, branch.name);
      if (claim) {
        throw new SvcError(
          'validation_failed',
          `branch ${branch.name} is already claimed by task ${claim.id}`,
          { field: 'branch_name' },
        );
      }
      const chat = d.chatClaim?.(project.id, branch.name, opts.handoff?.chat_id) ?? null;
      if (chat !== null) {
        throw new SvcError(
          'validation_failed',
          `branch ${branch.name} is already claimed by chat ${chat}`,
          { field: 'branch_name' },
        );
      }
      const mcp =
        opts.mcpCaller !== undefined
          ? mcpPlacement(d.tasks, d.store.db, opts.mcpCaller, config.mcp)
          : {};
      const state = body.paused === true ? 'paused' : 'queued';
      const id = d.tasks.insert(
        newTask({
          ...mcp,
          project_id: project.id,
          title,
          description: prefill.description,
          prompt: body.prompt ?? null,
          state,
          workflow: wf.snapshot.name ?? workflowName,
          workflow_origin: JSON.stringify(wf.origin),
          workflow_snapshot: JSON.stringify(wf.snapshot),
          fields: JSON.stringify(fields.fields),
          fields_defaulted: JSON.stringify(fields.defaulted),
          branch_name: branch.name,
          base_branch: baseBranch,
          priority: body.priority ?? 0,
          agent_override: body.agent ?? null,
          model_override: body.model ?? null,
          effort_override: body.effort ?? null,
          restricted: body.restricted === true ? 1 : 0,
          max_task_cost_usd: body.max_task_cost_usd ?? null,
          step_total: wf.snapshot.steps.length,
          forge_issue: prefill.issue ? JSON.stringify(prefill.issue) : null,
          forge_pull: prefill.pull ? JSON.stringify(prefill.pull) : null,
          created_via: opts.via ?? 'api',
          created_at: now,
        }),
      );
      if (id !== nextId) throw new Error(`task id ${id} differs from the expected ${nextId}`);
      if (opts.handoff) {
        d.store.db
          .prepare('UPDATE tasks SET worktree_path = ?, source_chat_id = ? WHERE id = ?')
          .run(opts.handoff.worktree_path, opts.handoff.chat_id, id);
      }
      if (opts.idempotencyKey !== undefined) {
        d.store.db
          .prepare(
            'INSERT INTO idempotency_keys (route, key, digest, task_id, created_at) VALUES (?, ?, ?, ?, ?)',
          )
          .run(
            TASK_CREATE_ROUTE,
            opts.idempotencyKey,
            digest,
            id,
            new Date(d.clock.now()).toISOString(),
          );
      }
      d.events.append(
        'task.created',
        { project_id: project.id, task_id: id },
        {
          state,
          title,
          workflow: wf.snapshot.name ?? workflowName,
          workflow_origin: wf.origin,
          parent_task_id: null,
          ...(opts.mcpCaller !== undefined ? { created_by_task_id: opts.mcpCaller } : {}),
        },
      );
      opts.handoff?.inTx(id);
      return { task: d.tasks.get(id) as TaskRow };
    });
    if ('existing' in task) return { task: task.existing as TaskRow, warnings: [], replayed: true };
    const unused = unusedPromptWarning(
      body.prompt,
      wf.snapshot,
      (name) => {
        try {
          return d.workflows.forTask(name, project).snapshot.steps;
        } catch {
          return null;
        }
      },
      d.registry,
    );
    return {
      task: task.task,
      warnings: [...wf.warnings, ...agentWarnings, ...(unused ? [unused] : []), ...baseWarnings],
      replayed: false,
    };
  }
}
