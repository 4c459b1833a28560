/**
 * Task routes (SPEC §4.4): create (with Idempotency-Key), list, detail, priority, step runs,
 * transcripts, the per-task event stream and every human action. Large bodies (4 MiB) where §8
 * says so; everything else 64 KiB.
 */
import type { FastifyInstance } from 'fastify';
import {
  AnswerSchema,
  ArchiveSchema,
  CreateTaskSchema,
  FollowUpSchema,
  PatchTaskSchema,
  RepairSchema,
  RetrySchema,
  TaskListQuerySchema,
} from '../../engine/index.js';
import { SvcError } from '../../errors.js';
import { idOrNull, parseId, parseWith } from '../../input/index.js';
import type { Services } from '../../services.js';
import { LARGE_BODY_LIMIT } from '../body.js';
import { JSON_UTF8, jsonArrayBody } from '../json-array.js';
import { streamForRequest } from '../sse.js';
import { openTranscriptPage, readTranscript, TranscriptQuerySchema } from '../transcript.js';
import {
  normalizeTranscript,
  TRANSCRIPT_FORMATS,
  type TranscriptFormat,
} from '../transcript-events.js';
import { transcriptFilesOf } from '../transcript-files.js';

type IdParams = { Params: { id: string } };

function transcriptFormat(raw: unknown): TranscriptFormat {
  if (raw === undefined) return 'raw';
  if (typeof raw === 'string' && (TRANSCRIPT_FORMATS as readonly string[]).includes(raw))
    return raw as TranscriptFormat;
  throw new SvcError(
    'validation_failed',
    `format must be one of ${TRANSCRIPT_FORMATS.join(', ')}`,
    {
      field: 'format',
    },
  );
}

export function taskRoutes(app: FastifyInstance, s: Services): void {
  const large = { bodyLimit: LARGE_BODY_LIMIT };
  const files = transcriptFilesOf(app);

  app.get('/v1/tasks', async (req, reply) => {
    const q = parseWith(TaskListQuerySchema, req.query ?? {}, 'query');
    // The same bytes fastify's JSON.stringify would send, each row's text encoded as it comes
    // (decisions 237, 244); texts of rows unchanged since an earlier page are reused (decision 250).
    let next: number | null = null;
    const body = jsonArrayBody((push) => {
      next = s.engine.listTexts(q, push).next_cursor;
    });
    // The body is a view of a scratch buffer, reused once the socket has taken these bytes.
    reply.raw.once('finish', body.release);
    if (next !== null) void reply.header('x-next-cursor', String(next));
    return reply.type(JSON_UTF8).send(body.bytes);
  });

  app.post('/v1/tasks', large, async (req, reply) => {
    const body = parseWith(CreateTaskSchema, req.body);
    const header = req.headers['idempotency-key'];
    const key = Array.isArray(header) ? header[0] : header;
    // A trigger's replay names itself, so the task records how it was made (created_via).
    const trigger = req.headers['x-svc-trigger'];
    const via = typeof trigger === 'string' && trigger !== '' ? `trigger:${trigger}` : undefined;
    const r = await s.engine.create(body, { idempotencyKey: key, via });
    return reply.code(201).send({ ...s.engine.view(r.task), warnings: r.warnings });
  });

  app.get<IdParams>('/v1/tasks/:id', async (req) =>
    s.engine.freshDetail(parseId(req.params.id, 'task')),
  );

  app.patch<IdParams>('/v1/tasks/:id', async (req) => {
    const id = parseId(req.params.id, 'task');
    s.engine.get(id);
    const body = parseWith(PatchTaskSchema, req.body);
    return s.engine.view(s.engine.actions.setPriority(id, body.priority));
  });

  app.get<IdParams>('/v1/tasks/:id/steps', async (req) =>
    s.engine.steps(parseId(req.params.id, 'task')),
  );

  app.get<{ Params: { id: string; run: string } }>(
    '/v1/tasks/:id/steps/:run/transcript',
    async (req, reply) => {
      const id = parseId(req.params.id, 'task');
      // A follower asks this many times a second while its step runs. The run's row is enough
      // when it belongs to the task (a task's runs go with it); the task's row is read only to
      // word the 404, in the order the checks have always been made.
      const known = idOrNull(req.params.run);
      const row = known === null ? undefined : s.engine.runs.transcriptOf(known);
      if (!row || row.task_id !== id) {
        s.engine.get(id);
        const runId = parseId(req.params.run, 'step run');
        throw new SvcError('not_found', `step run ${runId} not found on task ${id}`);
      }
      const runId = row.id;
      const { format, ...query } = (req.query ?? {}) as Record<string, unknown>;
      const q = parseWith(TranscriptQuerySchema, query, 'query');
      // ?format=events: an agent's raw stream lines as normalized events (decision 207).
      if (transcriptFormat(format) === 'events' && row.agent) {
        const t = await readTranscript(row.transcript_path, q);
        if (!t) throw new SvcError('not_found', `step run ${runId} has no transcript`);
        return reply
          .header('content-type', 'application/x-ndjson; charset=utf-8')
          .header('x-next-offset', String(t.nextOffset))
          .header('x-transcript-size', String(t.size))
          .send(normalizeTranscript(t.body, s.registry.agent(row.agent)));
      }
      // The bytes as they are on disk, the file kept open while the step runs (decision 243).
      const t = await openTranscriptPage(files, row.transcript_path, q, row.state === 'running');
      if (!t) throw new SvcError('not_found', `step run ${runId} has no transcript`);
      return reply
        .header('content-type', 'application/x-ndjson; charset=utf-8')
        .header('content-length', String(t.length))
        .header('x-next-offset', String(t.nextOffset))
        .header('x-transcript-size', String(t.size))
        .send(t.body);
    },
  );

  app.get<IdParams>('/v1/tasks/:id/events', async (req, reply) => {
    const id = parseId(req.params.id, 'task');
    s.engine.get(id);
    streamForRequest(req, reply, s, { taskId: id, acceptLive: (c) => c.task_id === id });
  });

  const act = (name: string, fn: (id: number) => ReturnType<typeof s.engine.get>) =>
    app.post<IdParams>(`/v1/tasks/:id/${name}`, async (req) =>
      s.engine.view(fn(parseId(req.params.id, 'task'))),
    );
  act('cancel', (id) => s.engine.actions.cancel(id));
  act('pause', (id) => s.engine.actions.pause(id));
  act('resume', (id) => s.engine.actions.resume(id));
  act('approve', (id) => s.engine.actions.approve(id));
  act('reject', (id) => s.engine.actions.reject(id));
  act('merge_finished', (id) => s.engine.actions.mergeFinished(id));

  app.post<IdParams>('/v1/tasks/:id/skip', async (req) => {
    const r = await s.engine.actions.skip(parseId(req.params.id, 'task'));
    return { ...s.engine.view(r.task), warnings: r.warnings };
  });

  app.post<IdParams>('/v1/tasks/:id/retry', large, async (req) => {
    const id = parseId(req.params.id, 'task');
    s.engine.get(id);
    const r = await s.engine.actions.retry(id, parseWith(RetrySchema, req.body));
    return {
      ...s.engine.view(r.task),
      ...(r.readmitted !== undefined ? { readmitted: r.readmitted } : {}),
    };
  });

  app.post<IdParams>('/v1/tasks/:id/repair', large, async (req) => {
    const id = parseId(req.params.id, 'task');
    s.engine.get(id);
    const r = s.engine.actions.repair(id, parseWith(RepairSchema, req.body));
    return { ...s.engine.view(r.task), warnings: r.warnings };
  });

  app.post<IdParams>('/v1/tasks/:id/follow_up', async (req) => {
    const id = parseId(req.params.id, 'task');
    s.engine.get(id);
    const r = s.engine.actions.followUp(id, parseWith(FollowUpSchema, req.body));
    return { ...s.engine.view(r.task), warnings: r.warnings };
  });

  app.post<IdParams & { Querystring: { force?: string } }>('/v1/tasks/:id/archive', async (req) => {
    const id = parseId(req.params.id, 'task');
    s.engine.get(id);
    const body = parseWith(ArchiveSchema, req.body);
    const force =
      body.force === true ||
      (req.query.force !== undefined && req.query.force !== 'false' && req.query.force !== '0');
    const r = await s.engine.actions.archive(id, { force, human: true });
    return { ...s.engine.view(r.task), ...(r.branch ? { branch: r.branch } : {}) };
  });

  app.post<IdParams>('/v1/tasks/:id/answer', large, async (req) => {
    const id = parseId(req.params.id, 'task');
    s.engine.get(id);
    return s.engine.view(s.engine.actions.answer(id, parseWith(AnswerSchema, req.body)));
  });
}
