/**
 * chats: conversations with an agent CLI in a worktree (SPEC §2.5, §3.3, §4.5, §6). Owns the
 * `chats` and `chat_turns` tables, the chat state machine, live turns (through the shared agent
 * turn, decision 160), the task lock it hands the engine, and hand-off through the engine's creator.
 * Uses: store, events, clock, config, git, proc, agents, engine, projects. Used by: http routes.
 * Decisions: 160–168.
 */

export type { ChatDeps } from './core.js';
export { CHAT_TASK_STATES } from './lifecycle.js';
export {
  ArchiveChatSchema,
  BUSY_CHAT_STATES,
  CHAT_STATES,
  ChatListQuerySchema,
  type ChatState,
  CreateChatSchema,
  DeleteChatQuerySchema,
  FilesQuerySchema,
  LIVE_CHAT_STATES,
  OpenTaskChatSchema,
  SendSchema,
  SkillsQuerySchema,
} from './schema.js';
export { ChatService } from './service.js';
export type { ChatRow, TurnRow } from './table.js';
