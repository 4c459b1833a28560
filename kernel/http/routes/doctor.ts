/** Doctor routes (SPEC §4.1, §2.9): the report, and the fixes a machine may make on its own. */
import type { FastifyInstance } from 'fastify';
import { parseWith } from '../../input/index.js';
import { DoctorFixBodySchema, DoctorFixQuerySchema, DoctorQuerySchema } from '../../ops/schema.js';
import type { Services } from '../../services.js';

export function doctorRoutes(app: FastifyInstance, s: Services): void {
  app.get('/v1/doctor', async (req) => {
    const q = parseWith(DoctorQuerySchema, req.query ?? {}, 'query');
    return s.doctor.report(q.probe !== false);
  });

  app.post('/v1/doctor/fix', async (req) => {
    const q = parseWith(DoctorFixQuerySchema, req.query ?? {}, 'query');
    const body = parseWith(DoctorFixBodySchema, req.body);
    return s.doctor.fix(body.force === true || q.force === true);
  });
}
