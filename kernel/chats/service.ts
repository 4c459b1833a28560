/**
 * Chats (SPEC §2.5, §3.3, §4.5): titled, multi-turn conversations with an agent CLI in a worktree
 * of their own, on an existing branch, or in a stopped task's worktree. Each turn resumes the CLI's
 * own session through the shared agent turn (decision 160); the chat owns its state machine, its
 * turns and their transcripts, and never writes a task row except through the engine's creator on
 * hand-off. A chat on a task locks the task (the engine asks `openChatOn`) and emits no `task.*`
 * event. Decisions 160–168.
 *
 * `ChatService` is the room's one face to the kernel; the work is in its parts (issue 21 point 4),
 * which share one `ChatCore`: `lifecycle.ts` (open, list, close, archive, delete, branch claims),
 * `turn.ts` (send, run, answer, cancel), `handoff.ts`, `view.ts` and `workspace.ts` (completions).
 */
import type { TaskRow } from '../store/index.js';
import { ChatCore, type ChatDeps } from './core.js';
import { handOffChat } from './handoff.js';
import { ChatLifecycle } from './lifecycle.js';
import {
  type ChatListQuery,
  type CreateChat,
  LIVE_CHAT_STATES,
  type OpenTaskChat,
} from './schema.js';
import type { ChatRow, ChatsTable, TurnRow } from './table.js';
import { ChatTurns } from './turn.js';
import { chatDetail, chatView, turnView } from './view.js';
import { chatFiles, chatSkills } from './workspace.js';

export class ChatService {
  readonly table: ChatsTable;
  private readonly core: ChatCore;
  private readonly lifecycle: ChatLifecycle;
  private readonly turns: ChatTurns;

  constructor(d: ChatDeps) {
    this.core = new ChatCore(d);
    this.table = this.core.table;
    this.lifecycle = new ChatLifecycle(this.core);
    this.turns = new ChatTurns(this.core);
  }

  /**
   * Wires the engine's hooks: the task lock (SPEC §3.2 rule 4), the cancel of a locked task, and
   * the branch claims task creation checks. Then turns a daemon restart left running are ended
   * `interrupted` and their chats go back to idle (the CLI process died with the daemon).
   */
  start(): void {
    const { engine } = this.core.d;
    engine.openChat = (taskId) => this.openChatOn(taskId)?.id ?? null;
    engine.openChats = (taskIds) => this.table.openOnTasks(taskIds, LIVE_CHAT_STATES);
    engine.closeChatForCancel = (taskId) => this.lifecycle.closeForTaskCancel(taskId);
    engine.projectDeleting = (projectId, projectPath) =>
      this.lifecycle.projectDeleting(projectId, projectPath);
    engine.chatClaim = (projectId, branch, exceptChat) =>
      this.table.claimOf(projectId, branch, LIVE_CHAT_STATES, exceptChat ?? 0)?.id ?? null;
    this.turns.recover();
  }

  /** Stops every live turn (daemon stop); each turn ends `interrupted` and its chat goes idle. */
  stop(): Promise<void> {
    return this.turns.stop();
  }

  openChatOn(taskId: number): ChatRow | undefined {
    return this.core.openChatOn(taskId);
  }

  load(id: number): ChatRow {
    return this.core.load(id);
  }

  view(chat: ChatRow): Record<string, unknown> {
    return chatView(this.core, chat);
  }

  turnView(t: TurnRow): Record<string, unknown> {
    return turnView(t);
  }

  detail(id: number): { chat: Record<string, unknown>; turns: Array<Record<string, unknown>> } {
    return chatDetail(this.core, id);
  }

  list(q: ChatListQuery): Array<Record<string, unknown>> {
    return this.lifecycle.list(q);
  }

  create(body: CreateChat): Promise<ChatRow> {
    return this.lifecycle.create(body);
  }

  openOnTask(taskId: number, body: OpenTaskChat): ChatRow {
    return this.lifecycle.openOnTask(taskId, body);
  }

  send(id: number, message: string): { chat: ChatRow; turn: TurnRow } {
    return this.turns.send(id, message);
  }

  answer(id: number, body: unknown): ChatRow {
    return this.turns.answer(id, body);
  }

  cancel(id: number): Promise<ChatRow> {
    return this.turns.cancel(id);
  }

  close(id: number): Promise<ChatRow> {
    return this.lifecycle.close(id);
  }

  archive(
    id: number,
    force: boolean,
  ): Promise<{ chat: ChatRow; branch?: Record<string, unknown> }> {
    return this.lifecycle.archive(id, force);
  }

  handoff(id: number, raw: unknown): Promise<{ task: TaskRow; chat: ChatRow; warnings: string[] }> {
    return handOffChat(this.core, id, raw);
  }

  remove(id: number, deleteBranch: boolean): Promise<Record<string, unknown>> {
    return this.lifecycle.remove(id, deleteBranch);
  }

  skills(id: number, refresh: boolean): Promise<Record<string, unknown>> {
    return chatSkills(this.core, id, refresh);
  }

  files(id: number, limit: number): Promise<Record<string, unknown>> {
    return chatFiles(this.core, id, limit);
  }
}
