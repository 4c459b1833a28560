/**
 * Chats (SPEC §2.5, §3.3, §4.5): titled, multi-turn conversations with an agent CLI in a worktree
 * of their own, on an existing branch, or in a stopped task's worktree. Each turn resumes the CLI's
 * own session through the shared agent turn (decision 160); the chat owns its state machine, its
 * turns and their transcripts, and never writes a task row except through the engine's creator on
 * hand-off. A chat on a task locks the task (the engine asks `openChatOn`) and emits no `task.*`
 * event. Decisions 160–168.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { AgentService } from '../agents/index.js';
import { probeRunner } from '../agents/index.js';
import { type Clock, formatMs, formatNs } from '../clock/index.js';
import { type ConfigService, parseDuration, tryParseSize } from '../config/index.js';
import type { Paths } from '../daemon/paths.js';
import {
  branchNameProblem,
  builtinBranch,
  type CreateTask,
  CreateTaskSchema,
  type Engine,
  spawnLogged,
} from '../engine/index.js';
import { SvcError } from '../errors.js';
import type { EventLog } from '../events/index.js';
import {
  addWorktree,
  addWorktreeForBranch,
  branchExists,
  deleteBranchIfEmpty,
  freshStartPoint,
  GitError,
  gitRaw,
  isDirty,
  operationInProgress,
  pruneWorktrees,
  removeWorktree,
} from '../git/index.js';
import { parseWith } from '../input/index.js';
import type {
  AgentAdapter,
  AgentSkill,
  InputOutcome,
  InputWait,
  UsageTotals,
} from '../plugin/index.js';
import { runAgentTurn, type TurnIo } from '../plugin/index.js';
import { killMarked, procMarkPrefix, resolveEnvironment, TranscriptWriter } from '../proc/index.js';
import type { Project, ProjectService } from '../projects/index.js';
import { StepRunsTable, type Store, type TaskRow } from '../store/index.js';
import { taskContext } from './context.js';
import { archiveHandedOff, handedOffBranchRefusal } from './handed-off.js';
import {
  BUSY_CHAT_STATES,
  type ChatListQuery,
  type ChatState,
  type CreateChat,
  LIVE_CHAT_STATES,
  type OpenTaskChat,
} from './schema.js';
import { type ChatRow, ChatsTable, type TurnRow, type TurnState } from './table.js';

export interface ChatDeps {
  store: Store;
  events: EventLog;
  clock: Clock;
  config: ConfigService;
  logger: Logger;
  paths: Paths;
  projects: ProjectService;
  engine: Engine;
  agents: AgentService;
}

/** Task states a chat may open on (SPEC §4.5). */
export const CHAT_TASK_STATES = ['blocked', 'awaiting_gate', 'done', 'aborted'] as const;

interface Waiting {
  wait: InputWait;
  resolve(answer: unknown): void;
}

interface LiveTurn {
  abort: AbortController;
  done: Promise<void>;
  waiting: Waiting | null;
}

type TurnEnd = {
  state: TurnState;
  reason?: string;
  message?: string;
  result_text?: string;
  session_id?: string | null;
  totals?: UsageTotals | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
  cost_usd?: number | null;
  exit_code?: number | null;
};

export class ChatService {
  readonly table: ChatsTable;
  private readonly runs: StepRunsTable;
  private readonly live = new Map<number, LiveTurn>();
  private readonly skillCache = new Map<number, AgentSkill[] | null>();
  /** Chat creation runs git between choosing the id and inserting it: one at a time. */
  private creating: Promise<unknown> = Promise.resolve();

  constructor(private readonly d: ChatDeps) {
    this.table = new ChatsTable(d.store.db);
    this.runs = new StepRunsTable(d.store.db);
  }

  private now(): string {
    return formatMs(this.d.clock.now());
  }

  /**
   * Wires the engine's hooks: the task lock (SPEC §3.2 rule 4), the cancel of a locked task, and
   * the branch claims task creation checks. Then turns a daemon restart left running are ended
   * `interrupted` and their chats go back to idle (the CLI process died with the daemon).
   */
  start(): void {
    const { engine } = this.d;
    engine.openChat = (taskId) => this.openChatOn(taskId)?.id ?? null;
    engine.openChats = (taskIds) => this.table.openOnTasks(taskIds, LIVE_CHAT_STATES);
    engine.closeChatForCancel = (taskId) => this.closeForTaskCancel(taskId);
    engine.projectDeleting = (projectId, projectPath) =>
      this.projectDeleting(projectId, projectPath);
    engine.chatClaim = (projectId, branch, exceptChat) =>
      this.table.claimOf(projectId, branch, LIVE_CHAT_STATES, exceptChat ?? 0)?.id ?? null;
    this.d.store.tx(() => {
      for (const turn of this.table.runningTurns()) {
        // The CLI's process group may have died with the daemon; what left it has not (decision 182).
        killMarked(`${this.turnMark(turn.chat_id, turn.seq)}.`);
        this.table.updateTurn(turn.id, {
          state: 'interrupted',
          failure_reason: 'daemon_restarted',
          failure_message: 'the daemon stopped during this turn',
          finished_at: this.now(),
        });
      }
      for (const chat of this.table.inStates(BUSY_CHAT_STATES)) this.moveChat(chat, 'idle', {});
    });
  }

  private stopping = false;

  /** The attempt marker of one turn's processes (decision 182). */
  private turnMark(chatId: number, seq: number): string {
    return `${procMarkPrefix(this.d.paths.dataDir)}.c${chatId}t${seq}`;
  }

  /** Stops every live turn (daemon stop); each turn ends `interrupted` and its chat goes idle. */
  async stop(): Promise<void> {
    this.stopping = true;
    const turns = [...this.live.values()];
    for (const t of turns) t.abort.abort();
    await Promise.all(turns.map((t) => t.done));
  }

  /**
   * A project delete (SPEC §4.2) takes its chats with it (the rows cascade): refused while one of
   * them runs a turn, as for a running task; otherwise their own worktrees are removed first so
   * nothing is left for gc. Branches are kept, as a forced delete keeps tasks' branches with work.
   */
  private async projectDeleting(projectId: number, projectPath: string): Promise<void> {
    const chats = this.table.list(['project_id = ?'], [projectId], 1_000_000, 0);
    const busy = chats.find((c) => BUSY_CHAT_STATES.includes(c.state));
    if (busy)
      throw new SvcError('invalid_state', `chat ${busy.id} is running a turn; cancel it first`, {
        state: busy.state,
        reason: 'chat_running',
      });
    for (const c of chats) {
      if (c.linked_task_id === null && c.worktree_path && existsSync(c.worktree_path))
        await removeWorktree(projectPath, c.worktree_path, true).catch(() => {
          rmSync(c.worktree_path, { recursive: true, force: true });
        });
    }
  }

  openChatOn(taskId: number): ChatRow | undefined {
    return this.table.openOnTask(taskId, LIVE_CHAT_STATES);
  }

  load(id: number): ChatRow {
    const chat = this.table.get(id);
    if (!chat) throw new SvcError('not_found', `chat ${id} not found`);
    return chat;
  }

  /** A state change with its event, in the caller's transaction; false when the row moved first. */
  private moveChat(
    chat: ChatRow,
    to: ChatState,
    patch: Partial<ChatRow>,
    from: readonly ChatState[] = [chat.state],
    extra: Record<string, unknown> = {},
  ): boolean {
    const now = this.now();
    const terminal = !LIVE_CHAT_STATES.includes(to);
    const moved = this.table.move(chat.id, from, {
      ...patch,
      state: to,
      updated_at: now,
      ...(terminal ? { ended_at: now } : {}),
    });
    if (moved) {
      this.d.events.append(
        'chat.state_changed',
        { project_id: chat.project_id, chat_id: chat.id },
        { from: chat.state, to, ...extra },
      );
    }
    return moved;
  }

  // ─── views ───────────────────────────────────────────────────────────────────────────────

  view(chat: ChatRow): Record<string, unknown> {
    const v: Record<string, unknown> = {
      id: chat.id,
      project_id: chat.project_id,
      title: chat.title,
      agent: chat.agent,
      model: chat.model,
      effort: chat.effort,
      state: chat.state,
      worktree_path: chat.worktree_path,
      branch_name: chat.branch_name,
      base_branch: chat.base_branch,
      existing_branch: chat.existing_branch === 1,
      restricted: chat.restricted === 1,
      session_id: chat.session_id,
      created_at: chat.created_at,
      updated_at: chat.updated_at,
      ended_at: chat.ended_at,
    };
    if (chat.linked_task_id !== null) v.linked_task_id = chat.linked_task_id;
    if (chat.handoff_task_id !== null) v.handoff_task_id = chat.handoff_task_id;
    const waiting = this.live.get(chat.id)?.waiting;
    if (waiting && chat.state === 'awaiting_input')
      v.pending_input = {
        kind: waiting.wait.kind,
        summary: waiting.wait.summary,
        request: waiting.wait.pending,
      };
    return v;
  }

  turnView(t: TurnRow): Record<string, unknown> {
    return {
      seq: t.seq,
      state: t.state,
      message: t.message,
      failure_reason: t.failure_reason,
      failure_message: t.failure_message,
      result_text: t.result_text,
      session_id: t.session_id,
      input_tokens: t.input_tokens,
      output_tokens: t.output_tokens,
      cost_usd: t.cost_usd,
      exit_code: t.exit_code,
      started_at: t.started_at,
      finished_at: t.finished_at,
    };
  }

  detail(id: number): { chat: Record<string, unknown>; turns: Array<Record<string, unknown>> } {
    const chat = this.load(id);
    return { chat: this.view(chat), turns: this.table.turns(id).map((t) => this.turnView(t)) };
  }

  /** SPEC §4.5 list: newest first; `archived` covers archived, handed_off and closed; `state` wins. */
  list(q: ChatListQuery): Array<Record<string, unknown>> {
    const where: string[] = [];
    const params: unknown[] = [];
    const inList = (states: readonly string[]) => {
      where.push(`state IN (${states.map(() => '?').join(', ')})`);
      params.push(...states);
    };
    if (q.state && q.state.length > 0) inList(q.state);
    else if (q.archived === 'true') inList(['archived', 'handed_off', 'closed']);
    else if (q.archived !== 'all') inList(LIVE_CHAT_STATES);
    if (q.project_id !== undefined) {
      where.push('project_id = ?');
      params.push(q.project_id);
    }
    if (q.task_id !== undefined) {
      where.push('linked_task_id = ?');
      params.push(q.task_id);
    }
    if (q.archived_before !== undefined) {
      where.push('ended_at IS NOT NULL AND ended_at < ?');
      params.push(q.archived_before);
    }
    if (q.archived_since !== undefined) {
      where.push('ended_at IS NOT NULL AND ended_at >= ?');
      params.push(q.archived_since);
    }
    return this.table.list(where, params, q.limit ?? 100, q.offset ?? 0).map((c) => this.view(c));
  }

  // ─── opening ─────────────────────────────────────────────────────────────────────────────

  /** SPEC §2.5: the request's agent, else the first registered adapter that can resume. */
  private pickAgent(requested: string | undefined, restricted: boolean): AgentAdapter {
    const { agents } = this.d;
    let adapter: AgentAdapter | undefined;
    if (requested !== undefined) {
      adapter = agents.adapter(requested);
      if (!adapter)
        throw new SvcError(
          'validation_failed',
          `agent ${requested} is not a registered adapter (${agents
            .adapters()
            .map((a) => a.name)
            .join(', ')})`,
          { field: 'agent' },
        );
    } else {
      adapter = agents.adapters().find((a) => a.traits.supports_resume);
      if (!adapter)
        throw new SvcError('agent_cannot_resume', 'no registered adapter can resume its session', {
          field: 'agent',
        });
    }
    if (!adapter.traits.supports_resume)
      throw new SvcError(
        'agent_cannot_resume',
        `${adapter.name} cannot resume its own session, so it cannot hold a chat`,
        { agent: adapter.name },
      );
    if (restricted && !adapter.traits.supports_restricted_resume)
      throw new SvcError(
        'validation_failed',
        `${adapter.name} cannot keep a resumed turn restricted, and this chat must run restricted`,
        { field: 'agent' },
      );
    return adapter;
  }

  private claimConflict(project: Project, branch: string, exceptChat = 0): SvcError | null {
    const task = this.d.engine.tasks.claimOf(project.id, branch);
    const chat = this.table.claimOf(project.id, branch, LIVE_CHAT_STATES, exceptChat);
    const by = task ? `task:${task.id}` : chat ? `chat:${chat.id}` : null;
    if (!by) return null;
    return new SvcError(
      'invalid_state',
      `branch ${branch} is already claimed by ${by.replace(':', ' ')}`,
      {
        branch,
        claimed_by: by,
      },
    );
  }

  /** `POST /v1/chats` (SPEC §4.5): a worktree of its own, on a new branch or an existing one. */
  create(body: CreateChat): Promise<ChatRow> {
    const run = this.creating.then(() => this.createNow(body));
    this.creating = run.catch(() => {});
    return run;
  }

  private async createNow(body: CreateChat): Promise<ChatRow> {
    const { d } = this;
    const project = d.projects.requireField(body.project_id);
    const adapter = this.pickAgent(body.agent, false);
    const id = this.table.nextId();
    const base = project.default_branch;
    let branch: string;
    if (body.existing_branch === true && body.branch_name !== undefined) {
      branch = body.branch_name.trim();
      const problem = branchNameProblem(branch);
      if (problem)
        throw new SvcError('validation_failed', `branch_name ${problem}`, { field: 'branch_name' });
      if (!(await branchExists(project.path, branch)))
        throw new SvcError(
          'validation_failed',
          `branch ${branch} does not exist in ${project.name}`,
          {
            field: 'branch_name',
          },
        );
      const conflict = this.claimConflict(project, branch);
      if (conflict) throw conflict;
    } else {
      // Decision 162: the task's pattern first; a name a task already holds gets the chat prefix.
      const candidates = [
        builtinBranch(id, body.title),
        builtinBranch(id, body.title).replace(/^svc\//, 'svc/chat-'),
      ];
      let chosen: string | null = null;
      let conflict: SvcError | null = null;
      for (const name of candidates) {
        conflict = this.claimConflict(project, name);
        if (!conflict && !(await branchExists(project.path, name))) {
          chosen = name;
          break;
        }
        conflict ??= new SvcError(
          'invalid_state',
          `branch ${name} already exists in ${project.name}`,
          {
            branch: name,
            claimed_by: 'git',
          },
        );
      }
      if (!chosen) throw conflict as SvcError;
      branch = chosen;
      if (!(await branchExists(project.path, base)))
        throw new SvcError('validation_failed', `base branch ${base} does not exist`, {
          field: 'project_id',
        });
    }
    const path = join(d.paths.worktreesDir, `chat-${id}`);
    await pruneWorktrees(project.path);
    try {
      if (body.existing_branch) await addWorktreeForBranch(project.path, path, branch);
      else {
        const start = d.config.current().fetch_base_branch
          ? await freshStartPoint(project.path, base)
          : base;
        await addWorktree(project.path, path, branch, start);
      }
    } catch (err) {
      const message = err instanceof GitError ? err.message : (err as Error).message;
      // git refuses a branch checked out elsewhere (the project's own checkout, a foreign worktree).
      if (/already (checked out|used by worktree)/.test(message))
        throw new SvcError('invalid_state', `branch ${branch} is checked out elsewhere`, {
          branch,
          claimed_by: 'checkout',
        });
      throw new SvcError('invalid_state', `cannot create the chat's worktree: ${message}`, {
        reason: 'git_error',
      });
    }
    try {
      return d.store.tx(() => {
        const now = this.now();
        const got = this.table.insert({
          id,
          project_id: project.id,
          title: body.title,
          agent: adapter.name,
          model: body.model ?? adapter.catalogue.default_model,
          effort: body.effort ?? adapter.catalogue.default_effort,
          state: 'idle',
          linked_task_id: null,
          worktree_path: path,
          branch_name: branch,
          base_branch: base,
          existing_branch: body.existing_branch ? 1 : 0,
          restricted: 0,
          context: null,
          created_at: now,
          updated_at: now,
        });
        d.events.append(
          'chat.created',
          { project_id: project.id, chat_id: got },
          { title: body.title, agent: adapter.name, branch },
        );
        return this.load(got);
      });
    } catch (err) {
      // Nothing half-written: the worktree goes with the row that never was.
      await removeWorktree(project.path, path, true).catch(() => {});
      if (!body.existing_branch) await gitRaw(project.path, ['branch', '-D', branch]);
      throw err;
    }
  }

  /** `POST /v1/tasks/{id}/chat` (SPEC §4.5 table). */
  openOnTask(taskId: number, body: OpenTaskChat): ChatRow {
    const { d } = this;
    const task = d.engine.get(taskId);
    if (!(CHAT_TASK_STATES as readonly string[]).includes(task.state))
      throw new SvcError('invalid_state', `cannot open a chat on a task that is ${task.state}`, {
        state: task.state,
      });
    const open = this.openChatOn(task.id);
    if (open)
      throw new SvcError(
        'task_locked_by_chat',
        `task ${task.id} already has open chat ${open.id}`,
        {
          chat_id: open.id,
        },
      );
    if (!task.worktree_path || !existsSync(task.worktree_path))
      throw new SvcError('task_has_no_worktree', `task ${task.id} has no worktree to chat in`, {
        state: task.state,
        action: 'chat',
        task_id: task.id,
      });
    let defaults: Record<string, unknown> = {};
    try {
      defaults =
        (JSON.parse(task.workflow_snapshot) as { defaults?: Record<string, unknown> }).defaults ??
        {};
    } catch {}
    const restricted = task.restricted === 1 || defaults.permission_mode === 'restricted';
    // Resolution as for repair: request, task overrides, workflow defaults, adapter default.
    const requested =
      body.agent ??
      task.agent_override ??
      (typeof defaults.agent === 'string' ? defaults.agent : undefined);
    const adapter = this.pickAgent(requested, restricted);
    const pick = (key: 'model' | 'effort', override: string | null): string => {
      const v =
        body[key] ??
        override ??
        (typeof defaults[key] === 'string' ? (defaults[key] as string) : undefined);
      if (v !== undefined && (requested === adapter.name || body[key] !== undefined)) return v;
      return key === 'model' ? adapter.catalogue.default_model : adapter.catalogue.default_effort;
    };
    const context = taskContext(task, this.runs.ofTask(task.id));
    return d.store.tx(() => {
      // Re-checked inside the transaction: two opens racing leave one chat.
      const again = this.openChatOn(task.id);
      if (again)
        throw new SvcError(
          'task_locked_by_chat',
          `task ${task.id} already has open chat ${again.id}`,
          {
            chat_id: again.id,
          },
        );
      const now = this.now();
      const title = body.title?.trim() ? body.title : `Chat on task ${task.id}: ${task.title}`;
      const id = this.table.insert({
        project_id: task.project_id,
        title,
        agent: adapter.name,
        model: pick('model', task.model_override),
        effort: pick('effort', task.effort_override),
        state: 'idle',
        linked_task_id: task.id,
        worktree_path: '',
        branch_name: task.branch_name ?? '',
        base_branch: task.base_branch,
        existing_branch: 0,
        restricted: restricted ? 1 : 0,
        context,
        created_at: now,
        updated_at: now,
      });
      // No task.* event: the task table does not change (SPEC §3.2 rule 6, §6 rule 1).
      d.events.append(
        'chat.created',
        { project_id: task.project_id, chat_id: id },
        { title, agent: adapter.name, task_id: task.id },
      );
      return this.load(id);
    });
  }

  // ─── turns ───────────────────────────────────────────────────────────────────────────────

  private cwdOf(chat: ChatRow): string | null {
    if (chat.linked_task_id === null) return chat.worktree_path || null;
    // A chat on a task reads the task's path at each turn start (SPEC §2.5).
    const task = this.d.engine.tasks.get(chat.linked_task_id);
    return task?.worktree_path && existsSync(task.worktree_path) ? task.worktree_path : null;
  }

  /** `POST /v1/chats/{id}/send`: starts a turn, or refuses; never queues (SPEC §3.3). */
  send(id: number, message: string): { chat: ChatRow; turn: TurnRow } {
    const { d } = this;
    const chat = this.load(id);
    if (chat.state !== 'idle')
      throw new SvcError('invalid_state', `cannot send to a chat that is ${chat.state}`, {
        state: chat.state,
      });
    if (this.cwdOf(chat) === null) {
      const task =
        chat.linked_task_id !== null ? d.engine.tasks.get(chat.linked_task_id) : undefined;
      throw new SvcError('task_has_no_worktree', `chat ${id} has no worktree to run in`, {
        state: task?.state ?? chat.state,
        action: 'send',
        ...(chat.linked_task_id !== null ? { task_id: chat.linked_task_id } : {}),
      });
    }
    const { turn, context } = d.store.tx(() => {
      const max = d.config.current().max_parallel_chats;
      if (this.table.countIn(BUSY_CHAT_STATES) >= max)
        throw new SvcError(
          'chat_cap_reached',
          `max_parallel_chats (${max}) chats already hold a live process; send again when one finishes`,
          { state: chat.state },
        );
      if (!this.moveChat(chat, 'running', { context: null }, ['idle'])) {
        const now = this.load(id);
        throw new SvcError('invalid_state', `cannot send to a chat that is ${now.state}`, {
          state: now.state,
        });
      }
      const t = this.table.insertTurn(id, message, this.now());
      d.events.append(
        'chat.turn_started',
        { project_id: chat.project_id, chat_id: id },
        { seq: t.seq },
      );
      return { turn: t, context: chat.context };
    });
    const abort = new AbortController();
    const live: LiveTurn = { abort, waiting: null, done: Promise.resolve() };
    this.live.set(id, live);
    live.done = this.runTurn(this.load(id), turn, context, live)
      .catch((err: unknown) => {
        d.logger.error({ err, chat_id: id }, 'chat turn failed unexpectedly');
        // Recording the failure can fail too (a full disk): logged, never an unhandled rejection.
        try {
          this.finishTurn(id, turn, {
            state: 'failed',
            reason: 'internal_error',
            message: (err as Error).message,
          });
        } catch (again) {
          d.logger.error({ err: again, chat_id: id }, 'chat turn failure not recorded');
        }
      })
      .finally(() => {
        if (this.live.get(id) === live) this.live.delete(id);
      });
    return { chat: this.load(id), turn };
  }

  private async runTurn(
    chat: ChatRow,
    turn: TurnRow,
    context: string | null,
    live: LiveTurn,
  ): Promise<void> {
    const { d } = this;
    const end = (e: TurnEnd) => this.finishTurn(chat.id, turn, e);
    const adapter = d.agents.adapter(chat.agent);
    if (!adapter)
      return end({
        state: 'failed',
        reason: 'agent_unavailable',
        message: `agent ${chat.agent} is not registered`,
      });
    const cwd = this.cwdOf(chat);
    if (!cwd)
      return end({
        state: 'failed',
        reason: 'task_has_no_worktree',
        message: 'the worktree is gone',
      });
    const found = await d.agents.locate(chat.agent);
    if (!found.ok)
      return end({ state: 'failed', reason: 'agent_unavailable', message: found.message });
    if (live.abort.signal.aborted) return end({ state: 'cancelled' });

    const config = d.config.current();
    const transcriptPath = join(
      d.paths.transcriptsDir,
      `chat-${chat.id}`,
      `turn-${turn.seq}.jsonl`,
    );
    d.store.tx(() => this.table.updateTurn(turn.id, { transcript_path: transcriptPath }));
    const latch = new AbortController();
    const transcript = new TranscriptWriter(
      transcriptPath,
      tryParseSize(config.transcript_max_bytes) ?? 0,
      () => latch.abort(),
    );
    const ts = () => formatNs(d.clock.nowNs());
    const signal = AbortSignal.any([live.abort.signal, latch.signal]);
    let proc: { pauseTimeout(): void; resumeTimeout(): void } | null = null;
    const scratch = mkdtempSync(join(tmpdir(), `svc-chat-${chat.id}-`));
    const io: TurnIo = {
      signal,
      spawn: (req) =>
        spawnLogged(
          {
            transcript,
            ts,
            clock: d.clock,
            config,
            cwd,
            vars: { SVC_CHAT_ID: String(chat.id) },
            // Chats run on the host (decision 165): a container would outlive no turn anyway.
            container: null,
            containerName: () => `svc-chat-${chat.id}`,
            mounts: [],
            signal,
            cancelled: () => live.abort.signal.aborted,
            mark: this.turnMark(chat.id, turn.seq),
            onOutput: (line) =>
              d.events.live({
                kind: 'command.output',
                chat_id: chat.id,
                data: { seq: turn.seq, ...line },
              }),
            onProcess: (p) => {
              proc = p;
            },
          },
          req,
        ),
      annotate: (kind, fields) => transcript.annotate(kind, fields, ts()),
      live: (kind, data) =>
        d.events.live({ kind, chat_id: chat.id, data: { seq: turn.seq, ...data } }),
      requestInput: async (wait) => {
        proc?.pauseTimeout();
        transcript.annotate('input_request', { pending: wait.pending }, ts());
        const r = await this.waitForInput(chat.id, wait, live, signal);
        transcript.annotate(r.kind === 'answered' ? 'input_response' : `input_${r.kind}`, {}, ts());
        proc?.resumeTimeout();
        return r;
      },
    };
    let totals: UsageTotals | null = null;
    try {
      totals = chat.session_totals ? (JSON.parse(chat.session_totals) as UsageTotals) : null;
    } catch {}
    const restricted = chat.restricted === 1;
    try {
      const r = await runAgentTurn(io, d.agents, {
        adapter,
        located: found,
        // The context block opens the first turn only; the human's words follow literally.
        prompt: context ? `${context}\n\n${turn.message}` : turn.message,
        cwd,
        model: chat.model,
        effort: adapter.traits.supports_effort ? chat.effort : '',
        permission_mode: restricted ? 'restricted' : 'full-auto',
        on_input: adapter.traits.supports_input ? 'wait' : 'deny',
        resume: chat.session_id ? { session_id: chat.session_id, totals } : null,
        mcp: null,
        scratch_dir: scratch,
        platform: d.agents.platform,
        timeoutMs: parseDuration(config.defaults.agent_timeout),
        label: `${adapter.name} (chat ${chat.id}, turn ${turn.seq})`,
        debugFields: { agent: chat.agent, model: chat.model, effort: chat.effort },
      });
      if (transcript.latched && r.kind !== 'cancelled')
        return end({
          state: 'failed',
          reason: 'transcript_limit',
          message: 'the turn passed transcript_max_bytes',
        });
      switch (r.kind) {
        case 'refused':
          return end({ state: 'failed', reason: r.reason, message: r.message });
        case 'cancelled':
          // The CLI keeps a stopped session: the next send resumes it (decision 161).
          return end({ state: 'cancelled', session_id: r.session_id ?? chat.session_id });
        case 'spawn_failed':
          return end({ state: 'failed', reason: 'agent_unavailable', message: r.message });
      }
      const v = r.verdict;
      const usage = {
        session_id: v.session_id ?? chat.session_id,
        totals: v.session_totals,
        input_tokens: v.input_tokens,
        output_tokens: v.output_tokens,
        cost_usd: v.cost_usd,
        exit_code: r.exit_code,
      };
      if (r.input_failure)
        return end({
          state: 'failed',
          reason: r.input_failure.reason,
          message: r.input_failure.message,
          ...usage,
        });
      if (r.timed_out)
        return end({
          state: 'failed',
          reason: 'timeout',
          message: `${adapter.name} did not finish within agent_timeout`,
          ...usage,
        });
      if (v.kind === 'succeeded') {
        d.agents.succeeded(adapter.name);
        return end({ state: 'succeeded', result_text: v.result_text, ...usage });
      }
      // A spent window is an observation like a step's (SPEC §2.4); the turn just fails, nothing waits.
      if (v.kind === 'usage_limit') d.agents.usageLimited(adapter.name, v.resets_at, v.message);
      return end({
        state: 'failed',
        reason: v.kind === 'usage_limit' ? 'usage_limit' : v.reason,
        message: v.message,
        ...usage,
      });
    } finally {
      await transcript.close();
      rmSync(scratch, { recursive: true, force: true });
    }
  }

  /** Parks the chat in awaiting_input until answered, the input timeout, or the turn stops. */
  private waitForInput(
    chatId: number,
    wait: InputWait,
    live: LiveTurn,
    signal: AbortSignal,
  ): Promise<InputOutcome> {
    const { d } = this;
    const chat = this.load(chatId);
    const moved = d.store.tx(() =>
      this.moveChat(chat, 'awaiting_input', {}, ['running'], {
        input: { kind: wait.kind, summary: wait.summary },
      }),
    );
    if (!moved || signal.aborted) return Promise.resolve({ kind: 'cancelled', waited_ms: 0 });
    const start = d.clock.now();
    const timeoutMs = parseDuration(d.config.current().defaults.input_timeout);
    return new Promise<InputOutcome>((resolve) => {
      let settled = false;
      const finish = (kind: 'answered' | 'timeout' | 'cancelled', answer?: unknown) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        signal.removeEventListener('abort', onAbort);
        live.waiting = null;
        const waited_ms = d.clock.now() - start;
        if (kind !== 'cancelled') {
          const now = this.table.get(chatId);
          if (now) d.store.tx(() => this.moveChat(now, 'running', {}, ['awaiting_input']));
        }
        resolve(kind === 'answered' ? { kind, answer, waited_ms } : { kind, waited_ms });
      };
      const timer = d.clock.setTimer(timeoutMs, () => finish('timeout'));
      const onAbort = () => finish('cancelled');
      signal.addEventListener('abort', onAbort, { once: true });
      live.waiting = { wait, resolve: (answer) => finish('answered', answer) };
    });
  }

  private finishTurn(chatId: number, turn: TurnRow, given: TurnEnd): void {
    const { d } = this;
    // A stop for shutdown is not the human's cancel: the turn says the daemon ended it.
    const e: TurnEnd =
      given.state === 'cancelled' && this.stopping
        ? {
            ...given,
            state: 'interrupted',
            reason: 'daemon_stopping',
            message: 'the daemon stopped during this turn',
          }
        : given;
    d.store.tx(() => {
      this.table.updateTurn(turn.id, {
        state: e.state,
        failure_reason: e.state === 'cancelled' ? 'cancelled' : (e.reason ?? null),
        failure_message: e.message ?? null,
        result_text: e.result_text ?? null,
        session_id: e.session_id ?? null,
        input_tokens: e.input_tokens ?? null,
        output_tokens: e.output_tokens ?? null,
        cost_usd: e.cost_usd ?? null,
        exit_code: e.exit_code ?? null,
        finished_at: this.now(),
      });
      const chat = this.table.get(chatId);
      if (!chat) return;
      // The session survives a failed or cancelled turn: the next one resumes what the CLI kept.
      if (e.session_id) this.table.update(chatId, { session_id: e.session_id });
      if (e.totals) this.table.update(chatId, { session_totals: JSON.stringify(e.totals) });
      d.events.append(
        'chat.turn_finished',
        { project_id: chat.project_id, chat_id: chatId },
        { seq: turn.seq, state: e.state, failure_reason: e.reason ?? null },
      );
      // A close that stopped this turn already moved the chat; only a live chat goes idle.
      this.moveChat(chat, 'idle', {}, BUSY_CHAT_STATES);
    });
  }

  /** `POST /v1/chats/{id}/answer`: the task answer body, validated by the adapter's protocol. */
  answer(id: number, body: unknown): ChatRow {
    const chat = this.load(id);
    const waiting = this.live.get(id)?.waiting;
    if (chat.state !== 'awaiting_input' || !waiting)
      throw new SvcError('invalid_state', 'no agent is waiting for an answer on this chat', {
        state: chat.state,
      });
    const v = waiting.wait.validate(body);
    if (!v.ok)
      throw new SvcError('validation_failed', v.message, v.field ? { field: v.field } : undefined);
    waiting.resolve(v.answer);
    return this.load(id);
  }

  /**
   * `POST /v1/chats/{id}/cancel` (decision 161): stops the live turn and waits for it to end; the
   * turn is recorded `cancelled` and the chat is idle again, keeping its session for the next send.
   */
  async cancel(id: number): Promise<ChatRow> {
    const chat = this.load(id);
    const live = this.live.get(id);
    if (!BUSY_CHAT_STATES.includes(chat.state) || !live)
      throw new SvcError(
        'invalid_state',
        `cannot cancel: chat ${id} is ${chat.state}, no turn is live`,
        {
          state: chat.state,
        },
      );
    live.abort.abort();
    await live.done;
    return this.load(id);
  }

  private async stopLive(id: number): Promise<void> {
    const live = this.live.get(id);
    if (!live) return;
    live.abort.abort();
    await live.done;
  }

  // ─── endings ─────────────────────────────────────────────────────────────────────────────

  private linkedRefusal(chat: ChatRow, action: string): SvcError {
    return new SvcError(
      'chat_linked_to_task',
      `chat ${chat.id} is on task ${chat.linked_task_id}; ${action} is not offered`,
      {
        task_id: chat.linked_task_id as number,
        state: chat.state,
        action,
      },
    );
  }

  /** `POST /v1/chats/{id}/close` (SPEC §4.5): a task-linked chat ends; the task lock lifts. */
  async close(id: number): Promise<ChatRow> {
    const chat = this.load(id);
    if (chat.linked_task_id === null)
      throw new SvcError('invalid_state', `chat ${id} is not on a task; archive it instead`, {
        state: chat.state,
        reason: 'not_task_linked',
      });
    if (!LIVE_CHAT_STATES.includes(chat.state))
      throw new SvcError('invalid_state', `cannot close a chat that is ${chat.state}`, {
        state: chat.state,
      });
    this.closeNow(chat, 'human');
    await this.stopLive(id);
    return this.load(id);
  }

  private closeNow(chat: ChatRow, by: 'human' | 'task_cancel'): void {
    this.d.store.tx(() => {
      const now = this.load(chat.id);
      if (!LIVE_CHAT_STATES.includes(now.state)) return;
      if (this.moveChat(now, 'closed', {}, LIVE_CHAT_STATES)) {
        this.d.events.append(
          'chat.closed',
          { project_id: chat.project_id, chat_id: chat.id },
          { task_id: chat.linked_task_id, by },
        );
      }
    });
    // Closing first, stopping after: the turn's end finds the chat closed and leaves it so.
    this.live.get(chat.id)?.abort.abort();
  }

  /** A locked task's cancel: the live turn stops and the chat closes with the abort (SPEC §4.5). */
  private closeForTaskCancel(taskId: number): void {
    const chat = this.openChatOn(taskId);
    if (chat) this.closeNow(chat, 'task_cancel');
  }

  /** `POST /v1/chats/{id}/archive` (decision 164): idle only, worktree removed, branch kept unless empty. */
  async archive(
    id: number,
    force: boolean,
  ): Promise<{ chat: ChatRow; branch?: Record<string, unknown> }> {
    const { d } = this;
    const chat = this.load(id);
    if (chat.linked_task_id !== null) throw this.linkedRefusal(chat, 'archive');
    if (chat.state === 'handed_off') {
      const move = (c: ChatRow, to: ChatState, from: readonly ChatState[]) =>
        this.moveChat(c, to, {}, from);
      return {
        chat: archiveHandedOff(
          { store: d.store, events: d.events, load: (n) => this.load(n), move },
          chat,
        ),
      };
    }
    if (chat.state !== 'idle')
      throw new SvcError('invalid_state', `cannot archive a chat that is ${chat.state}`, {
        state: chat.state,
      });
    const project = d.projects.require(chat.project_id);
    if (
      !force &&
      chat.worktree_path &&
      existsSync(chat.worktree_path) &&
      (await isDirty(chat.worktree_path)) === true
    )
      throw new SvcError(
        'invalid_state',
        `chat ${id}'s worktree has uncommitted changes; commit them or archive with force`,
        {
          state: chat.state,
          reason: 'worktree_dirty',
        },
      );
    const moved = d.store.tx(() => {
      const now = this.load(id);
      if (!this.moveChat(now, 'archived', { worktree_path: '' }, ['idle'])) return false;
      d.events.append(
        'chat.archived',
        { project_id: chat.project_id, chat_id: id },
        { branch: chat.branch_name },
      );
      return true;
    });
    if (!moved) {
      const now = this.load(id);
      throw new SvcError('invalid_state', `cannot archive a chat that is ${now.state}`, {
        state: now.state,
      });
    }
    if (chat.worktree_path && existsSync(chat.worktree_path))
      await removeWorktree(project.path, chat.worktree_path, true).catch(() => {
        rmSync(chat.worktree_path, { recursive: true, force: true });
      });
    let branch: Record<string, unknown> | undefined;
    if (
      d.config.current().delete_empty_branch_on_archive &&
      !chat.existing_branch &&
      chat.branch_name
    ) {
      const r = await deleteBranchIfEmpty(project.path, chat.base_branch, chat.branch_name);
      branch = { name: chat.branch_name, ...r };
    }
    this.skillCache.delete(id);
    return { chat: this.load(id), ...(branch ? { branch } : {}) };
  }

  /**
   * `POST /v1/chats/{id}/handoff` (SPEC §4.5): the body is a `POST /v1/tasks` body validated by the
   * same code; the task takes the chat's project, base, branch and worktree (uncommitted work and
   * all), and one transaction writes the task, `task.created` and `chat.handed_off`.
   */
  async handoff(
    id: number,
    raw: unknown,
  ): Promise<{ task: TaskRow; chat: ChatRow; warnings: string[] }> {
    const { d } = this;
    const chat = this.load(id);
    if (chat.linked_task_id !== null) throw this.linkedRefusal(chat, 'handoff');
    if (chat.state !== 'idle')
      throw new SvcError('invalid_state', `cannot hand off a chat that is ${chat.state}`, {
        state: chat.state,
      });
    if (!chat.worktree_path || !existsSync(chat.worktree_path))
      throw new SvcError('invalid_state', `chat ${id} has no worktree to hand off`, {
        state: chat.state,
        reason: 'no_worktree',
      });
    const given =
      raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
    const { project_id: _p, base_branch: _b, branch_name: _n, ...rest } = given;
    const body: CreateTask = parseWith(CreateTaskSchema, {
      title: chat.title,
      ...rest,
      project_id: chat.project_id,
      base_branch: chat.base_branch,
      branch_name: chat.branch_name,
    });
    const op = await operationInProgress(chat.worktree_path);
    if (op)
      throw new SvcError(
        'repo_operation_in_progress',
        `chat ${id}'s worktree is in the middle of a ${op}`,
        {
          operation: op,
        },
      );
    const r = await d.engine.creator.create(body, {
      via: `chat:${id}`,
      handoff: {
        chat_id: id,
        worktree_path: chat.worktree_path,
        // Inside the task's transaction: both durable events or neither (SPEC §4.5).
        inTx: (taskId) => {
          const now = this.load(id);
          if (
            !this.moveChat(now, 'handed_off', { handoff_task_id: taskId, worktree_path: '' }, [
              'idle',
            ])
          )
            throw new SvcError('invalid_state', `cannot hand off a chat that is ${now.state}`, {
              state: now.state,
            });
          d.events.append(
            'chat.handed_off',
            { project_id: chat.project_id, chat_id: id },
            { task_id: taskId },
          );
        },
      },
    });
    d.engine.poke();
    this.skillCache.delete(id);
    return { task: r.task, chat: this.load(id), warnings: r.warnings };
  }

  /**
   * `DELETE /v1/chats/{id}` (decision 163): an archived or closed chat's row, turns and transcripts
   * go; `delete_branch=true` also force-deletes the branch of a chat of its own, never one another
   * task or chat works on.
   */
  async remove(id: number, deleteBranch: boolean): Promise<Record<string, unknown>> {
    const { d } = this;
    const chat = this.load(id);
    if (chat.state !== 'archived' && chat.state !== 'closed' && chat.state !== 'handed_off')
      throw new SvcError(
        'invalid_state',
        `only an archived, handed-off or closed chat can be deleted; chat ${id} is ${chat.state}`,
        {
          state: chat.state,
        },
      );
    if (deleteBranch && chat.linked_task_id !== null)
      throw this.linkedRefusal(chat, 'delete_branch');
    if (deleteBranch && chat.handoff_task_id !== null) throw handedOffBranchRefusal(chat);
    let branch: Record<string, unknown> | undefined;
    if (deleteBranch && chat.branch_name) {
      const project = d.projects.require(chat.project_id);
      const conflict = this.claimConflict(project, chat.branch_name, id);
      if (conflict) throw conflict;
      if (!(await branchExists(project.path, chat.branch_name)))
        branch = { name: chat.branch_name, result: 'missing' };
      else {
        const r = await gitRaw(project.path, ['branch', '-D', chat.branch_name]);
        branch =
          r.code === 0
            ? { name: chat.branch_name, result: 'deleted' }
            : { name: chat.branch_name, result: 'error', error: r.stderr.trim() };
      }
    }
    d.store.tx(() => {
      this.table.delete(id);
      d.events.append(
        'chat.deleted',
        { project_id: chat.project_id, chat_id: id },
        {
          ...(branch ? { branch } : {}),
        },
      );
    });
    rmSync(join(d.paths.transcriptsDir, `chat-${id}`), { recursive: true, force: true });
    this.skillCache.delete(id);
    return { id, deleted: true, ...(branch ? { branch } : {}) };
  }

  // ─── completion helpers ──────────────────────────────────────────────────────────────────

  private workspace(chat: ChatRow, action: string): string {
    const cwd = this.cwdOf(chat);
    if (cwd) return cwd;
    if (chat.linked_task_id !== null) {
      const task = this.d.engine.tasks.get(chat.linked_task_id);
      throw new SvcError(
        'task_has_no_worktree',
        `task ${chat.linked_task_id} has lost its worktree`,
        {
          state: task?.state ?? 'archived',
          action,
          task_id: chat.linked_task_id,
        },
      );
    }
    throw new SvcError('invalid_state', `chat ${chat.id} has no worktree (it is ${chat.state})`, {
      state: chat.state,
    });
  }

  /** `GET /v1/chats/{id}/skills` (decision 166): the adapter's listing, cached per chat. */
  async skills(id: number, refresh: boolean): Promise<Record<string, unknown>> {
    const chat = this.load(id);
    const cwd = this.workspace(chat, 'skills');
    const adapter = this.d.agents.adapter(chat.agent);
    const head = {
      agent: chat.agent,
      supported:
        adapter?.traits.supports_skill_listing === true && adapter.listSkills !== undefined,
      sigil: adapter?.traits.skill_sigil ?? '',
      position: adapter?.traits.skill_position ?? 'leading',
    };
    if (!adapter?.listSkills || !head.supported) return { ...head, skills: [] };
    if (refresh || !this.skillCache.has(id)) {
      const loc = this.d.agents.where(adapter);
      if (!loc.path) return { ...head, skills: [], error: `${chat.agent} is not installed` };
      const run = probeRunner(
        loc.path,
        resolveEnvironment(this.d.config.current().environment),
        cwd,
      );
      this.skillCache.set(id, await adapter.listSkills({ path: loc.path, run, cwd }));
    }
    const list = this.skillCache.get(id) ?? null;
    return list === null
      ? { ...head, skills: [], error: `${chat.agent} could not list its skills` }
      : { ...head, skills: list };
  }

  /** `GET /v1/chats/{id}/files` (decision 166): tracked and untracked files git does not ignore. */
  async files(id: number, limit: number): Promise<Record<string, unknown>> {
    const chat = this.load(id);
    const cwd = this.workspace(chat, 'files');
    const r = await gitRaw(cwd, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
    if (r.code !== 0)
      throw new SvcError('invalid_state', `git cannot list the workspace: ${r.stderr.trim()}`, {
        state: chat.state,
        reason: 'git_error',
      });
    const all = [...new Set(r.stdout.split('\0').filter((f) => f !== ''))].sort();
    return { files: all.slice(0, limit), truncated: all.length > limit, total: all.length };
  }
}
