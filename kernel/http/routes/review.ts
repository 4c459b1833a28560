/**
 * Review routes (issue 16): `GET /v1/tasks/{id}/diff` — the task's diff as text, a stat or one
 * file — and `POST /v1/tasks/{id}/review` — line comments sent back to the agent in one action.
 * Both run git for the length of the request only: a client that hangs up kills it.
 */

import type { FastifyInstance, FastifyReply } from 'fastify';
import { GitAbortedError } from '../../git/index.js';
import { parseId, parseWith } from '../../input/index.js';
import {
  DiffQuerySchema,
  isDiffText,
  ReviewSchema,
  reviewTask,
  taskDiff,
} from '../../review/index.js';
import type { Services } from '../../services.js';
import { LARGE_BODY_LIMIT } from '../body.js';
import { reviewDeps } from '../review-deps.js';

type IdParams = { Params: { id: string } };

/**
 * A signal that aborts when the client goes away before the answer is sent. The response's
 * `close` fires on a connection closed early; the request's own `close` fires once its (empty)
 * body is read, which says nothing about the client.
 */
function untilClientGone(reply: FastifyReply): { signal: AbortSignal; done(): void } {
  const ac = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableEnded) ac.abort();
  };
  reply.raw.on('close', onClose);
  return { signal: ac.signal, done: () => reply.raw.off('close', onClose) };
}

/** Nobody is left to answer: drop the connection instead of writing an error to it. */
function gone(reply: FastifyReply): FastifyReply {
  reply.hijack();
  reply.raw.destroy();
  return reply;
}

export function reviewRoutes(app: FastifyInstance, s: Services): void {
  const deps = reviewDeps(s);

  app.get<IdParams>('/v1/tasks/:id/diff', async (req, reply) => {
    const id = parseId(req.params.id, 'task');
    s.engine.get(id);
    const q = parseWith(DiffQuerySchema, req.query ?? {}, 'query');
    const client = untilClientGone(reply);
    try {
      const r = await taskDiff(deps, id, q, { signal: client.signal });
      void reply.header('x-svc-diff-source', r.source);
      void reply.header('x-svc-diff-truncated', String(r.truncated));
      if (!isDiffText(r)) return r;
      return reply.header('content-type', 'text/plain; charset=utf-8').send(r.body);
    } catch (err) {
      if (err instanceof GitAbortedError) return gone(reply);
      throw err;
    } finally {
      client.done();
    }
  });

  app.post<IdParams>(
    '/v1/tasks/:id/review',
    { bodyLimit: LARGE_BODY_LIMIT },
    async (req, reply) => {
      const id = parseId(req.params.id, 'task');
      s.engine.get(id);
      const body = parseWith(ReviewSchema, req.body);
      const client = untilClientGone(reply);
      try {
        const r = await reviewTask(deps, id, body, client.signal);
        if (!r.task) return { review: r.review };
        return { ...s.engine.view(r.task), warnings: r.warnings ?? [], review: r.review };
      } catch (err) {
        if (err instanceof GitAbortedError) return gone(reply);
        throw err;
      } finally {
        client.done();
      }
    },
  );
}
