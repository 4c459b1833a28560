/**
 * The request shapes of the read-side workflow routes (SPEC §4.3, docs/api.md) and the validate
 * request's answer, shared by the HTTP routes and the MCP tools so both parse the same schema and
 * run the same code (decision 121).
 */
import { z } from 'zod';
import { SvcError } from '../errors.js';
import type { WorkflowRegistry } from './registry.js';
import { MAX_WORKFLOW_BYTES } from './source.js';

const projectIdParam = z
  .string()
  .regex(/^[1-9]\d{0,15}$/, 'project_id must be a positive integer')
  .transform(Number)
  .optional()
  .describe('A project: its own workflows (in .svc/workflows) join the global ones.');

export const WorkflowListQuerySchema = z.object({ project_id: projectIdParam });

export const WorkflowDefinitionQuerySchema = z.object({
  name: z
    .string({ error: 'name is required' })
    .min(1, 'name is required')
    .describe('The workflow’s name, as workflows_list shows it.'),
  project_id: projectIdParam,
});

export const ValidateWorkflowBodySchema = z.strictObject({
  yaml: z
    .string({ error: 'yaml is required and must be a string' })
    .describe('The workflow file’s text to judge; nothing is written.'),
  /** The entry name the text is meant for; a different `name:` inside is a warning. */
  name: z
    .string()
    .min(1)
    .optional()
    .describe('The name the file is meant to have; a different `name:` inside is a warning.'),
  /** With `scope` (and `project_id` for project): warn when another file of the scope has the name. */
  scope: z
    .enum(['global', 'project'])
    .optional()
    .describe('Where the file would live: warns when another file of that scope has the name.'),
  project_id: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('The project, with scope project; its view also resolves includes and agents.'),
  /** The file being edited, which is not "another file". */
  file: z
    .string()
    .optional()
    .describe('The file being edited, so its own name is not reported as taken.'),
});

export type ValidateWorkflowBody = z.infer<typeof ValidateWorkflowBodySchema>;

/** `POST /v1/workflows/validate`: judges a candidate text; writes nothing. */
export function validateWorkflowRequest(registry: WorkflowRegistry, body: ValidateWorkflowBody) {
  if (Buffer.byteLength(body.yaml, 'utf8') > MAX_WORKFLOW_BYTES) {
    throw new SvcError(
      'payload_too_large',
      `yaml is over the 1 MiB (${MAX_WORKFLOW_BYTES} bytes) a workflow may have`,
      { field: 'yaml', limit: MAX_WORKFLOW_BYTES },
    );
  }
  if (body.yaml.trim() === '')
    throw new SvcError('validation_failed', 'yaml is empty', { field: 'yaml' });
  const result = registry.validate(body.yaml);
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
    const view = registry.view(body.scope === 'project' ? body.project_id : undefined);
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
}
