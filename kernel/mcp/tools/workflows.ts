/** Workflow tools (SPEC §4.3): the registry's read side and validation; writes stay with the API. */
import {
  ValidateWorkflowBodySchema,
  validateWorkflowRequest,
  WorkflowDefinitionQuerySchema,
  WorkflowListQuerySchema,
  workflowSchemaDoc,
} from '../../workflows/index.js';
import { defineTool } from '../tool.js';

export const workflowTools = [
  defineTool({
    name: 'workflows_list',
    description:
      'The workflows a task can name: built-in, global and (with `project_id`) the project’s own, with shadowing.',
    route: 'GET /v1/workflows',
    readOnly: true,
    input: { schema: WorkflowListQuerySchema, from: 'query' },
    run: ({ s }, q) => ({ workflows: s.workflows.list(q.project_id) }),
  }),
  defineTool({
    name: 'workflows_definition',
    description:
      'One workflow by name (as a project sees it with `project_id`): file, version, errors, the parsed definition and its steps.',
    route: 'GET /v1/workflows/definition',
    readOnly: true,
    input: { schema: WorkflowDefinitionQuerySchema, from: 'query' },
    run: ({ s }, q) => s.workflows.definition(q.name, q.project_id),
  }),
  defineTool({
    name: 'workflows_validate',
    description:
      'Validate a candidate workflow YAML text without writing it: `{valid, name, errors[], warnings[]}`.',
    route: 'POST /v1/workflows/validate',
    readOnly: true,
    input: { schema: ValidateWorkflowBodySchema, from: 'body' },
    run: ({ s }, body) => validateWorkflowRequest(s.workflows, body),
  }),
  defineTool({
    name: 'workflows_schema',
    description: 'The workflow file format as data: every key, step type and accepted value.',
    route: 'GET /v1/workflows/schema',
    readOnly: true,
    run: ({ s }) => workflowSchemaDoc(s.registry, s.agentValues()),
  }),
];
