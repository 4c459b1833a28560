/**
 * Trigger routes (SPEC §4.6): list, create (a disabled starter), the schema as data, validate,
 * read, PATCH with edit ops and a version, DELETE with a version (the ledger stays), the two dry
 * runs, the ledger, and the signed ingress. Every route answers with `triggers.enabled` off.
 * Large bodies (4 MiB) for validate, PATCH, test and the ingress (§8).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SvcError } from '../../errors.js';
import { parseWith } from '../../input/index.js';
import type { Services } from '../../services.js';
import {
  CreateTriggerSchema,
  createTrigger,
  deleteTrigger,
  dryPoll,
  dryTest,
  PatchTriggerSchema,
  patchTrigger,
  TriggerDeliveriesQuerySchema,
  TriggerTestBodySchema,
  triggerDeliveries,
  triggerDetail,
  triggerIdProblem,
  triggerList,
  triggerSchemaDoc,
} from '../../triggers/index.js';
import { LARGE_BODY_LIMIT, rawBodyOf } from '../body.js';

type IdParams = { Params: { id: string } };

const ValidateSchema = z.strictObject({
  source: z.string({ error: 'source is required (the file text)' }),
  id: z.string().min(1).optional(),
});

export function triggerRoutes(app: FastifyInstance, s: Services): void {
  const large = { bodyLimit: LARGE_BODY_LIMIT };
  app.get('/v1/triggers', async () => triggerList(s.triggers, s.paths.triggersDir));

  app.post('/v1/triggers', async (req, reply) => {
    const body = parseWith(CreateTriggerSchema, req.body);
    return reply.code(201).send(createTrigger(s.triggers, body));
  });

  app.get('/v1/triggers/schema', async () => triggerSchemaDoc(s.registry.listTriggerSources()));

  app.post('/v1/triggers/validate', large, async (req) => {
    const body = parseWith(ValidateSchema, req.body);
    const v = s.triggers.files.validate(body.source);
    const errors = [...v.findings];
    if (body.id !== undefined && v.declaredId !== body.id) {
      const problem = triggerIdProblem(body.id);
      errors.push({
        path: 'id',
        code: problem ? 'invalid_id' : 'id_mismatch',
        message: problem
          ? `id ${JSON.stringify(body.id)} ${problem}`
          : `the document's id ${JSON.stringify(v.declaredId)} does not match ${JSON.stringify(body.id)}`,
      });
    }
    return { valid: errors.length === 0, errors };
  });

  app.get<IdParams>('/v1/triggers/:id', async (req) => triggerDetail(s.triggers, req.params.id));

  app.patch<IdParams>('/v1/triggers/:id', large, async (req) => {
    if (triggerIdProblem(req.params.id))
      throw new SvcError('not_found', `trigger ${req.params.id} not found`);
    return patchTrigger(s.triggers, req.params.id, parseWith(PatchTriggerSchema, req.body));
  });

  app.delete<IdParams & { Querystring: { version?: string } }>(
    '/v1/triggers/:id',
    async (req, reply) => {
      deleteTrigger(s.triggers, req.params.id, req.query.version);
      return reply.code(204).send();
    },
  );

  app.post<IdParams>('/v1/triggers/:id/test', large, async (req) => {
    const body = parseWith(TriggerTestBodySchema, req.body);
    return dryTest(s.triggers, req.params.id, body.event);
  });

  app.post<IdParams>('/v1/triggers/:id/poll', async (req) => {
    const ac = new AbortController();
    req.raw.once('close', () => {
      if (req.raw.destroyed && !req.raw.complete) ac.abort();
    });
    return dryPoll(s.triggers, req.params.id, ac.signal);
  });

  app.get<IdParams>('/v1/triggers/:id/deliveries', async (req) => {
    const { limit } = parseWith(TriggerDeliveriesQuerySchema, req.query ?? {}, 'query');
    return triggerDeliveries(s.triggers, req.params.id, limit);
  });

  app.post<IdParams>(
    '/v1/triggers/:id/events',
    { bodyLimit: LARGE_BODY_LIMIT, config: { rawBody: true } },
    async (req) => {
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers))
        headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
      return s.triggers.ingress(req.params.id, { raw: rawBodyOf(req), body: req.body, headers });
    },
  );
}
