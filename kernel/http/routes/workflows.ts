/**
 * Workflow routes (SPEC §4.3, §2.7; shapes in docs/api.md, decision 029): the registry list per
 * project view, one entry's definition, validation of a candidate text, create, the
 * byte-preserving PATCH, and the format as data for editors. `POST /v1/resolve` lives with tasks.
 * The read-side request shapes and the validate answer live in kernel/workflows, shared with the
 * MCP tools (decision 121).
 */
import type { FastifyInstance } from 'fastify';
import { parseWith } from '../../input/index.js';
import type { Services } from '../../services.js';
import {
  CreateWorkflowBodySchema,
  createWorkflow,
  PatchWorkflowBodySchema,
  patchWorkflow,
  ValidateWorkflowBodySchema,
  validateWorkflowRequest,
  WorkflowDefinitionQuerySchema,
  WorkflowListQuerySchema,
  workflowSchemaDoc,
} from '../../workflows/index.js';
import { LARGE_BODY_LIMIT } from '../body.js';

export function workflowsRoutes(app: FastifyInstance, s: Services): void {
  app.get('/v1/workflows', async (req) => {
    const q = parseWith(WorkflowListQuerySchema, req.query, 'query');
    return { workflows: s.workflows.list(q.project_id) };
  });

  app.get('/v1/workflows/definition', async (req) => {
    const q = parseWith(WorkflowDefinitionQuerySchema, req.query, 'query');
    return s.workflows.definition(q.name, q.project_id);
  });

  app.get('/v1/workflows/schema', async () => workflowSchemaDoc(s.registry, s.agentValues()));

  app.post('/v1/workflows/validate', { bodyLimit: LARGE_BODY_LIMIT }, async (req) =>
    validateWorkflowRequest(s.workflows, parseWith(ValidateWorkflowBodySchema, req.body)),
  );

  app.post('/v1/workflows', async (req, reply) => {
    const body = parseWith(CreateWorkflowBodySchema, req.body);
    const result = createWorkflow(s.workflows, body);
    return reply.code(201).send(result);
  });

  app.patch('/v1/workflows', { bodyLimit: LARGE_BODY_LIMIT }, async (req) => {
    const body = parseWith(PatchWorkflowBodySchema, req.body);
    return patchWorkflow(s.workflows, body);
  });
}
