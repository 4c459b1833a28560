/** Config routes (SPEC §4.1, §2.10): the configuration in force, and a comment-preserving partial edit. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Services } from '../../services.js';

export function configRoutes(app: FastifyInstance, s: Services): void {
  // Keys written but waiting for the next start are named in a header: the body stays the
  // configuration in force, the same object MCP's config_show answers.
  const pending = (reply: FastifyReply) => {
    const keys = s.config.pendingRestart().map((p) => p.key);
    if (keys.length > 0) reply.header('x-svc-pending-restart', keys.join(', '));
  };
  app.get('/v1/config', async (_req, reply) => {
    pending(reply);
    return s.config.current();
  });
  // Whether the file on disk is what is in force: a refused edit leaves the last good one.
  app.get('/v1/config/file', async () => ({
    file: s.config.file,
    rejected: s.config.fileRejection(),
  }));
  app.patch('/v1/config', async (req, reply) => {
    const config = s.config.patch(req.body ?? {});
    pending(reply);
    return config;
  });
}
