/**
 * Agent routes (SPEC §4.1, §4.3): the adapter records (`?refresh=true` re-probes, quota included),
 * the quota push (204; 404 for an unknown adapter; 400 for a body naming no window) and
 * `POST /v1/resolve`, what a candidate task's agent steps and branch would resolve to.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { previewBranch, previewSteps } from '../../agents/preview.js';
import { QuotaPushSchema, ResolveBodySchema } from '../../agents/schemas.js';
import type { Services } from '../../container.js';
import { SvcError } from '../../errors.js';
import { LARGE_BODY_LIMIT } from '../body.js';
import { parseWith } from '../validate.js';

const AgentsQuerySchema = z.object({
  refresh: z
    .enum(['true', 'false', '1', '0'], { error: 'refresh must be true or false' })
    .optional(),
});

export function agentsRoutes(app: FastifyInstance, s: Services): void {
  app.get('/v1/agents', async (req) => {
    const q = parseWith(AgentsQuerySchema, req.query ?? {}, 'query');
    const refresh = q.refresh === 'true' || q.refresh === '1';
    return { agents: await s.agents.records(refresh ? 'fresh' : 'auto') };
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

  app.post('/v1/resolve', { bodyLimit: LARGE_BODY_LIMIT }, async (req) => {
    const body = parseWith(ResolveBodySchema, req.body);
    const project = body.project_id !== undefined ? s.projects.get(body.project_id) : undefined;
    if (body.project_id !== undefined && !project)
      throw new SvcError(
        'validation_failed',
        `project_id ${body.project_id} does not name a project`,
        { field: 'project_id' },
      );
    const name = body.workflow ?? project?.default_workflow ?? 'adhoc';
    const snap = (() => {
      try {
        return s.workflows.snapshot(name, project?.id);
      } catch (err) {
        throw new SvcError('validation_failed', (err as Error).message, { field: 'workflow' });
      }
    })();
    if (!snap.ok)
      throw new SvcError(
        'validation_failed',
        `workflow ${name}: ${snap.errors.map((e) => e.message).join('; ')}`,
        { field: 'workflow', errors: snap.errors },
      );
    return {
      workflow: name,
      steps: previewSteps(snap.snapshot, body, s.agents, s.registry),
      ...(project && {
        branch: previewBranch(body, project, s.config.current().branch_template),
      }),
    };
  });
}
