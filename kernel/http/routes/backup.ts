/**
 * `POST /v1/daemon/backup` (SPEC §4.1 backup rules, §2.9 backup result). Scheduled backups have no
 * route: they are set through config only (rule 5). Restore is client-side (rule 4).
 */
import type { FastifyInstance } from 'fastify';
import { parseWith } from '../../input/index.js';
import { BackupBodySchema } from '../../ops/schema.js';
import type { Services } from '../../services.js';

export function backupRoutes(app: FastifyInstance, s: Services): void {
  app.post('/v1/daemon/backup', async (req) => {
    const body = parseWith(BackupBodySchema, req.body);
    return s.backups.manual(body.path);
  });
}
