/** Request bodies and queries of the chat routes (SPEC §4.5). zod is the single source of truth. */
import { z } from 'zod';
import { BOUNDS, boundedString, branchField } from '../input/index.js';

export const CHAT_STATES = [
  'idle',
  'running',
  'awaiting_input',
  'archived',
  'handed_off',
  'closed',
] as const;
export type ChatState = (typeof CHAT_STATES)[number];

/** States that hold the conversation open; the others are terminal (`archived` in the list's sense). */
export const LIVE_CHAT_STATES: readonly ChatState[] = ['idle', 'running', 'awaiting_input'];
/** States that hold a live process and count against `max_parallel_chats`. */
export const BUSY_CHAT_STATES: readonly ChatState[] = ['running', 'awaiting_input'];

const agentFields = {
  agent: z.string().min(1).max(64).optional(),
  model: z.string().max(256).optional(),
  effort: z.string().max(64).optional(),
};

export const CreateChatSchema = z
  .strictObject({
    project_id: z.number({ error: 'project_id is required (an integer)' }).int().positive(),
    title: boundedString('title', BOUNDS.title).refine(
      (s) => s.trim() !== '',
      'title must not be blank',
    ),
    existing_branch: z.boolean().optional(),
    branch_name: branchField('branch_name').optional(),
    ...agentFields,
  })
  // SPEC §4.5: branch_name only with existing_branch: true, and either without the other is 400.
  .refine((b) => (b.existing_branch === true) === (b.branch_name !== undefined), {
    message:
      'branch_name is accepted only with existing_branch: true, and existing_branch needs branch_name',
    path: ['branch_name'],
  });
export type CreateChat = z.infer<typeof CreateChatSchema>;

export const OpenTaskChatSchema = z.strictObject({
  title: boundedString('title', BOUNDS.title).optional(),
  ...agentFields,
});
export type OpenTaskChat = z.infer<typeof OpenTaskChatSchema>;

export const SendSchema = z.strictObject({
  message: boundedString('message', BOUNDS.prompt).refine(
    (s) => s.trim() !== '',
    'message must not be blank',
  ),
});

export const ArchiveChatSchema = z.strictObject({ force: z.boolean().optional() });

const idParam = z
  .string()
  .regex(/^[1-9]\d{0,15}$/, 'must be a positive integer')
  .transform(Number);
const count = (max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a non-negative integer')
    .transform(Number)
    .refine((n) => n <= max, `must be at most ${max}`);
const instant = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an RFC 3339 time')
  .transform((s) => new Date(s).toISOString());
const bool = z.enum(['true', 'false']).transform((v) => v === 'true');

export const ChatListQuerySchema = z.strictObject({
  project_id: idParam.optional(),
  task_id: idParam.optional(),
  state: z
    .union([z.enum(CHAT_STATES), z.array(z.enum(CHAT_STATES))])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .optional(),
  archived: z
    .enum(['true', 'false', 'all'], { error: 'archived is true, false or all' })
    .optional(),
  archived_before: instant.optional(),
  archived_since: instant.optional(),
  limit: count(1000)
    .refine((n) => n >= 1, 'must be at least 1')
    .optional(),
  offset: count(1_000_000_000).optional(),
});
export type ChatListQuery = z.infer<typeof ChatListQuerySchema>;

export const DeleteChatQuerySchema = z.strictObject({ delete_branch: bool.optional() });
export const SkillsQuerySchema = z.strictObject({ refresh: bool.optional() });
export const FilesQuerySchema = z.strictObject({
  limit: count(100_000)
    .refine((n) => n >= 1, 'must be at least 1')
    .optional(),
});
