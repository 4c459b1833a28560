/**
 * Workflow routes (SPEC §4.3, §2.7; shapes in docs/api.md, decision 029): the registry list per
 * project view, one entry's definition, validation of a candidate text, create, the
 * byte-preserving PATCH, and the format as data for editors. `POST /v1/resolve` lives with tasks.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Services } from '../../container.js';
import { SvcError } from '../../errors.js';
import {
  CreateWorkflowBodySchema,
  createWorkflow,
  MAX_WORKFLOW_BYTES,
  PatchWorkflowBodySchema,
  patchWorkflow,
  workflowSchemaDoc,
} from '../../workflows/index.js';
import { LARGE_BODY_LIMIT } from '../body.js';
import { parseWith } from '../validate.js';

const projectIdParam = z
  .string()
  .regex(/^[1-9]\d{0,15}$/, 'project_id must be a positive integer')
  .transform(Number)
  .optional();

const ListQuerySchema = z.object({ project_id: projectIdParam });

const DefinitionQuerySchema = z.object({
  name: z.string({ error: 'name is required' }).min(1, 'name is required'),
  project_id: projectIdParam,
});

const ValidateBodySchema = z.strictObject({
  yaml: z.string({ error: 'yaml is required and must be a string' }),
  /** The entry name the text is meant for; a different `name:` inside is a warning. */
  name: z.string().min(1).optional(),
  /** With `scope` (and `project_id` for project): warn when another file of the scope has the name. */
  scope: z.enum(['global', 'project']).optional(),
  project_id: z.number().int().positive().optional(),
  /** The file being edited, which is not "another file". */
  file: z.string().optional(),
});

export function workflowsRoutes(app: FastifyInstance, s: Services): void {
  app.get('/v1/workflows', async (req) => {
    const q = parseWith(ListQuerySchema, req.query, 'query');
    return { workflows: s.workflows.list(q.project_id) };
  });

  app.get('/v1/workflows/definition', async (req) => {
    const q = parseWith(DefinitionQuerySchema, req.query, 'query');
    return s.workflows.definition(q.name, q.project_id);
  });

  app.get('/v1/workflows/schema', async () => workflowSchemaDoc(s.registry, s.agentValues()));

  app.post('/v1/workflows/validate', { bodyLimit: LARGE_BODY_LIMIT }, async (req) => {
    const body = parseWith(ValidateBodySchema, req.body);
    if (Buffer.byteLength(body.yaml, 'utf8') > MAX_WORKFLOW_BYTES) {
      throw new SvcError(
        'payload_too_large',
        `yaml is over the 1 MiB (${MAX_WORKFLOW_BYTES} bytes) a workflow may have`,
        { field: 'yaml', limit: MAX_WORKFLOW_BYTES },
      );
    }
    if (body.yaml.trim() === '')
      throw new SvcError('validation_failed', 'yaml is empty', { field: 'yaml' });
    const result = s.workflows.validate(body.yaml);
    const warnings = [...result.warnings];
    const name = result.declaredName;
    if (body.name !== undefined && name !== null && name !== body.name) {
      warnings.push({
        path: 'name',
        code: 'name_mismatch',
        message: `the file declares name ${name}, not ${body.name}`,
      });
    }
    if (body.scope !== undefined && name !== null) {
      if (body.scope === 'project' && body.project_id === undefined)
        throw new SvcError('validation_failed', 'project_id is required for scope project', {
          field: 'project_id',
        });
      const view = s.workflows.view(body.scope === 'project' ? body.project_id : undefined);
      const other = view.entries.find(
        (e) => e.scope === body.scope && e.name === name && e.file !== body.file,
      );
      if (other)
        warnings.push({
          path: 'name',
          code: 'duplicate_name',
          message: `${other.file} already declares the workflow name ${name} in this scope`,
        });
    }
    return {
      valid: result.errors.length === 0,
      name,
      errors: result.errors,
      warnings,
    };
  });

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
