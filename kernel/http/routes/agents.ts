/**
 * Agent routes (SPEC §4.1, §4.3): the adapter records (`?refresh=true` re-probes, quota included),
 * the quota push (204; 404 for an unknown adapter; 400 for a body naming no window) and
 * `POST /v1/resolve`, what a candidate task's agent steps and branch would resolve to. The read
 * side lives in kernel/agents/requests.ts, shared with the MCP tools (decision 121).
 */
import type { FastifyInstance } from 'fastify';
import { AgentsQuerySchema, agentList, resolveRequest } from '../../agents/requests.js';
import { QuotaPushSchema, ResolveBodySchema } from '../../agents/schemas.js';
import { SvcError } from '../../errors.js';
import { parseWith } from '../../input/index.js';
import type { Services } from '../../services.js';
import { LARGE_BODY_LIMIT } from '../body.js';

export function agentsRoutes(app: FastifyInstance, s: Services): void {
  app.get('/v1/agents', async (req) => {
    return agentList(s.agents, parseWith(AgentsQuerySchema, req.query ?? {}, 'query'));
  });

  app.post<{ Params: { name: string } }>('/v1/agents/:name/quota', async (req, reply) => {
    const adapter = s.agents.adapter(req.params.name);
    if (!adapter) throw new SvcError('not_found', `no agent adapter named ${req.params.name}`);
    const body = req.body ?? {};
    if (adapter.quota?.kind === 'push') {
      const r = adapter.quota.parsePush(body);
      if (!r.ok)
        throw new SvcError('validation_failed', r.issues.join('; ') || 'invalid quota body', {
          field: 'windows',
        });
      s.agents.quota.setReading(adapter.name, r.push.source, r.push.windows);
    } else {
      const push = parseWith(QuotaPushSchema, body);
      s.agents.quota.setReading(
        adapter.name,
        push.source,
        push.windows.map((w) => ({
          name: w.name,
          used_percent: w.used_percent,
          window: w.window,
          ...(w.resets_at !== undefined && { resets_at: new Date(w.resets_at).toISOString() }),
        })),
      );
    }
    return reply.code(204).send();
  });

  app.post('/v1/resolve', { bodyLimit: LARGE_BODY_LIMIT }, async (req) =>
    resolveRequest(s, parseWith(ResolveBodySchema, req.body)),
  );
}
