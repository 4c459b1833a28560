/**
 * Maintenance routes (SPEC §4.1, §2.9 maintenance body): list orphans, and gc them. GC deletes no
 * branch and modifies no row; both answer the same body.
 */
import type { FastifyInstance } from 'fastify';
import { parseWith } from '../../input/index.js';
import { EmptyQuerySchema, GcBodySchema } from '../../ops/schema.js';
import type { Services } from '../../services.js';

export function maintenanceRoutes(app: FastifyInstance, s: Services): void {
  app.get('/v1/maintenance/orphans', async (req) => {
    parseWith(EmptyQuerySchema, req.query ?? {}, 'query');
    return s.reclaimer.list();
  });

  app.post('/v1/maintenance/gc', async (req) => {
    const body = parseWith(GcBodySchema, req.body);
    return s.opsQueue.run('gc', () => s.reclaimer.gc(body));
  });
}
