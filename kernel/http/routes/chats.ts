/**
 * Chat routes (SPEC §4.5) and `POST /v1/tasks/{id}/chat`. None of them is an MCP tool. Bodies of
 * send, answer and cancel, and the skills and files shapes, are ours (decisions 161, 166).
 */
import type { FastifyInstance } from 'fastify';
import {
  ArchiveChatSchema,
  ChatListQuerySchema,
  CreateChatSchema,
  DeleteChatQuerySchema,
  FilesQuerySchema,
  OpenTaskChatSchema,
  SendSchema,
  SkillsQuerySchema,
} from '../../chats/index.js';
import { AnswerSchema } from '../../engine/index.js';
import { SvcError } from '../../errors.js';
import { parseId, parseWith } from '../../input/index.js';
import type { Services } from '../../services.js';
import { LARGE_BODY_LIMIT } from '../body.js';
import { streamForRequest } from '../sse.js';
import { openTranscriptPage, TranscriptQuerySchema } from '../transcript.js';
import { transcriptFilesOf } from '../transcript-files.js';

type IdParams = { Params: { id: string } };

export function chatRoutes(app: FastifyInstance, s: Services): void {
  const large = { bodyLimit: LARGE_BODY_LIMIT };
  const files = transcriptFilesOf(app);
  const id = (raw: string) => parseId(raw, 'chat');

  app.get('/v1/chats', async (req) =>
    s.chats.list(parseWith(ChatListQuerySchema, req.query ?? {}, 'query')),
  );

  app.post('/v1/chats', async (req, reply) => {
    const chat = await s.chats.create(parseWith(CreateChatSchema, req.body));
    return reply.code(201).send(s.chats.view(chat));
  });

  app.post<IdParams>('/v1/tasks/:id/chat', async (req, reply) => {
    const taskId = parseId(req.params.id, 'task');
    s.engine.get(taskId);
    const chat = s.chats.openOnTask(taskId, parseWith(OpenTaskChatSchema, req.body ?? {}));
    return reply.code(201).send(s.chats.view(chat));
  });

  app.get<IdParams>('/v1/chats/:id', async (req) => s.chats.detail(id(req.params.id)));

  app.post<IdParams>('/v1/chats/:id/send', large, async (req, reply) => {
    const chatId = id(req.params.id);
    s.chats.load(chatId);
    const body = parseWith(SendSchema, req.body);
    const r = s.chats.send(chatId, body.message);
    return reply.code(202).send({ chat: s.chats.view(r.chat), turn: s.chats.turnView(r.turn) });
  });

  app.post<IdParams>('/v1/chats/:id/answer', large, async (req) => {
    const chatId = id(req.params.id);
    s.chats.load(chatId);
    return s.chats.view(s.chats.answer(chatId, parseWith(AnswerSchema, req.body)));
  });

  app.post<IdParams>('/v1/chats/:id/cancel', async (req) => {
    const chatId = id(req.params.id);
    s.chats.load(chatId);
    parseWith(ArchiveChatSchema.pick({}), req.body);
    return s.chats.view(await s.chats.cancel(chatId));
  });

  app.post<IdParams & { Querystring: { force?: string } }>('/v1/chats/:id/archive', async (req) => {
    const chatId = id(req.params.id);
    s.chats.load(chatId);
    const body = parseWith(ArchiveChatSchema, req.body);
    const force =
      body.force === true ||
      (req.query.force !== undefined && req.query.force !== 'false' && req.query.force !== '0');
    const r = await s.chats.archive(chatId, force);
    return { ...s.chats.view(r.chat), ...(r.branch ? { branch: r.branch } : {}) };
  });

  app.post<IdParams>('/v1/chats/:id/handoff', large, async (req, reply) => {
    const chatId = id(req.params.id);
    s.chats.load(chatId);
    const r = await s.chats.handoff(chatId, req.body ?? {});
    return reply.code(201).send({
      task: { ...s.engine.view(r.task), warnings: r.warnings },
      chat: s.chats.view(r.chat),
    });
  });

  app.post<IdParams>('/v1/chats/:id/close', async (req) => {
    const chatId = id(req.params.id);
    s.chats.load(chatId);
    parseWith(ArchiveChatSchema.pick({}), req.body);
    return s.chats.view(await s.chats.close(chatId));
  });

  app.delete<IdParams>('/v1/chats/:id', async (req) => {
    const chatId = id(req.params.id);
    s.chats.load(chatId);
    const q = parseWith(DeleteChatQuerySchema, req.query ?? {}, 'query');
    return s.chats.remove(chatId, q.delete_branch === true);
  });

  app.get<IdParams>('/v1/chats/:id/events', async (req, reply) => {
    const chatId = id(req.params.id);
    s.chats.load(chatId);
    streamForRequest(req, reply, s, { chatId, acceptLive: (c) => c.chat_id === chatId });
  });

  app.get<{ Params: { id: string; seq: string } }>(
    '/v1/chats/:id/turns/:seq/transcript',
    async (req, reply) => {
      const chatId = id(req.params.id);
      s.chats.load(chatId);
      const seq = parseId(req.params.seq, 'turn');
      const turn = s.chats.table.turn(chatId, seq);
      if (!turn) throw new SvcError('not_found', `turn ${seq} not found on chat ${chatId}`);
      const q = parseWith(TranscriptQuerySchema, req.query ?? {}, 'query');
      // The file kept open while the turn runs (decision 243).
      const live = turn.state === 'running';
      const t = await openTranscriptPage(files, turn.transcript_path, q, live);
      if (!t) throw new SvcError('not_found', `turn ${seq} of chat ${chatId} has no transcript`);
      return reply
        .header('content-type', 'application/x-ndjson; charset=utf-8')
        .header('content-length', String(t.length))
        .header('x-next-offset', String(t.nextOffset))
        .header('x-transcript-size', String(t.size))
        .send(t.body);
    },
  );

  app.get<IdParams>('/v1/chats/:id/skills', async (req) => {
    const chatId = id(req.params.id);
    s.chats.load(chatId);
    const q = parseWith(SkillsQuerySchema, req.query ?? {}, 'query');
    return s.chats.skills(chatId, q.refresh === true);
  });

  app.get<IdParams>('/v1/chats/:id/files', async (req) => {
    const chatId = id(req.params.id);
    s.chats.load(chatId);
    const q = parseWith(FilesQuerySchema, req.query ?? {}, 'query');
    return s.chats.files(chatId, q.limit ?? 1000);
  });
}
