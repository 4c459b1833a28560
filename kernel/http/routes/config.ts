/** Config routes (SPEC §4.1, §2.10): the configuration in force, and a comment-preserving partial edit. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../container.js';

export function configRoutes(app: FastifyInstance, s: Services): void {
  app.get('/v1/config', async () => s.config.current());
  // Whether the file on disk is what is in force: a refused edit leaves the last good one.
  app.get('/v1/config/file', async () => ({
    file: s.config.file,
    rejected: s.config.fileRejection(),
  }));
  app.patch('/v1/config', async (req) => s.config.patch(req.body ?? {}));
}
