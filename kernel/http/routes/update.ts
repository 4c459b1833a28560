/** `GET /v1/update` (SPEC §2.9 update check): the cached release check. It never polls. */
import type { FastifyInstance } from 'fastify';
import { parseWith } from '../../input/index.js';
import { EmptyQuerySchema } from '../../ops/schema.js';
import type { Services } from '../../services.js';

export function updateRoutes(app: FastifyInstance, s: Services): void {
  app.get('/v1/update', async (req) => {
    parseWith(EmptyQuerySchema, req.query ?? {}, 'query');
    return s.updates.view();
  });
}
