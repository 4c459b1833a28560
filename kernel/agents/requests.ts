/**
 * The read side of the agent routes (SPEC §4.1 `GET /v1/agents`, §4.3 `POST /v1/resolve`), shared
 * by the HTTP routes and the MCP tools so both parse the same schemas and run the same code
 * (decision 121).
 */
import { z } from 'zod';
import type { ConfigService } from '../config/index.js';
import { SvcError } from '../errors.js';
import type { ProjectService } from '../projects/index.js';
import type { StepTypeLookup, WorkflowRegistry } from '../workflows/index.js';
import { previewBranch, previewSteps } from './preview.js';
import type { ResolveBody } from './schemas.js';
import type { AgentService } from './service.js';

export const AgentsQuerySchema = z.object({
  refresh: z
    .enum(['true', 'false', '1', '0'], { error: 'refresh must be true or false' })
    .optional()
    .describe('true: probe every agent CLI again (versions, login, quota) instead of the cache.'),
});

/** `GET /v1/agents`: the adapter records; `refresh` re-probes, quota included. */
export async function agentList(agents: AgentService, q: z.infer<typeof AgentsQuerySchema>) {
  const refresh = q.refresh === 'true' || q.refresh === '1';
  return { agents: await agents.records(refresh ? 'fresh' : 'auto') };
}

export interface ResolveDeps {
  agents: AgentService;
  projects: ProjectService;
  workflows: WorkflowRegistry;
  registry: StepTypeLookup;
  config: ConfigService;
}

/** `POST /v1/resolve`: what a candidate task's agent steps and branch would resolve to. */
export function resolveRequest(d: ResolveDeps, body: ResolveBody) {
  const project =
    body.project_id !== undefined ? d.projects.requireField(body.project_id) : undefined;
  const name = body.workflow ?? project?.default_workflow ?? 'adhoc';
  const snap = (() => {
    try {
      return d.workflows.snapshot(name, project?.id);
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
    steps: previewSteps(snap.snapshot, body, d.agents, d.registry),
    ...(project && {
      branch: previewBranch(body, project, d.config.current().branch_template),
    }),
  };
}
