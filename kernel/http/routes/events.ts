/**
 * The global event stream `GET /v1/events` (SPEC §6 rule 5, designed in docs/events.md): every
 * durable event, optionally narrowed by `types` (comma-separated kinds), `project_id` or
 * `task_id`; `Last-Event-ID` resumes after a stored id.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SvcError } from '../../errors.js';
import { isEventKind } from '../../events/index.js';
import { parseWith } from '../../input/index.js';
import type { Services } from '../../services.js';
import { streamForRequest } from '../sse.js';

const idParam = z
  .string()
  .regex(/^[1-9]\d{0,15}$/, 'must be a positive integer')
  .transform(Number);

export const EventsQuerySchema = z.strictObject({
  types: z.string().optional(),
  project_id: idParam.optional(),
  task_id: idParam.optional(),
  last_event_id: z.string().optional(),
});

export function eventsRoutes(app: FastifyInstance, s: Services): void {
  app.get('/v1/events', async (req, reply) => {
    const q = parseWith(EventsQuerySchema, req.query, 'query');
    const kinds = q.types
      ? q.types
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean)
      : undefined;
    for (const k of kinds ?? []) {
      if (!isEventKind(k))
        throw new SvcError('validation_failed', `types names an unknown event kind: ${k}`, {
          field: 'types',
        });
    }
    streamForRequest(req, reply, s, { kinds, projectId: q.project_id, taskId: q.task_id });
  });
}
