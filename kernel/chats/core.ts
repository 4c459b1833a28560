/**
 * What the chat service's parts share (issue 21 point 4): the dependencies, the tables, the live
 * turns and the skill cache, and the few moves every part makes — load a chat, change its state
 * with its event, find the workspace a turn runs in. One object, built once by `ChatService`, so
 * lifecycle, turn and hand-off see the same live turns and never hold state of their own twice.
 */
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import type { AgentService } from '../agents/index.js';
import { type Clock, formatMs } from '../clock/index.js';
import type { ConfigService } from '../config/index.js';
import type { Paths } from '../daemon/paths.js';
import type { Engine } from '../engine/index.js';
import { SvcError } from '../errors.js';
import type { EventLog } from '../events/index.js';
import type { AgentSkill, InputWait, StepTypes } from '../plugin/index.js';
import { procMarkPrefix } from '../proc/index.js';
import type { ProjectService } from '../projects/index.js';
import { StepRunsTable, type Store } from '../store/index.js';
import { type ChatState, LIVE_CHAT_STATES } from './schema.js';
import { type ChatRow, ChatsTable } from './table.js';

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
  /** The step types, asked which rows are a human gate (decision 225). */
  registry: StepTypes;
}

/** An agent's question a live turn is parked on (SPEC §3.3), answered through `answer`. */
export interface Waiting {
  wait: InputWait;
  resolve(answer: unknown): void;
}

/** A turn whose CLI runs now: its stop switch, its end, and the question it waits on, if any. */
export interface LiveTurn {
  abort: AbortController;
  done: Promise<void>;
  waiting: Waiting | null;
}

export class ChatCore {
  readonly table: ChatsTable;
  readonly runs: StepRunsTable;
  readonly live = new Map<number, LiveTurn>();
  readonly skillCache = new Map<number, AgentSkill[] | null>();

  constructor(readonly d: ChatDeps) {
    this.table = new ChatsTable(d.store.db);
    this.runs = new StepRunsTable(d.store.db);
  }

  now(): string {
    return formatMs(this.d.clock.now());
  }

  /** The attempt marker of one turn's processes (decision 182). */
  turnMark(chatId: number, seq: number): string {
    return `${procMarkPrefix(this.d.paths.dataDir)}.c${chatId}t${seq}`;
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
  moveChat(
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

  cwdOf(chat: ChatRow): string | null {
    if (chat.linked_task_id === null) return chat.worktree_path || null;
    // A chat on a task reads the task's path at each turn start (SPEC §2.5).
    const task = this.d.engine.tasks.get(chat.linked_task_id);
    return task?.worktree_path && existsSync(task.worktree_path) ? task.worktree_path : null;
  }

  linkedRefusal(chat: ChatRow, action: string): SvcError {
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

  async stopLive(id: number): Promise<void> {
    const live = this.live.get(id);
    if (!live) return;
    live.abort.abort();
    await live.done;
  }
}
