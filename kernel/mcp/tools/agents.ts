/**
 * Agent tools (SPEC §4.1, §4.3): the adapter records, read-only, and what a candidate task would
 * resolve to. The quota push is not a tool by design (SPEC §5.6): an agent must not forge
 * daemon-level quota facts.
 */
import {
  AgentsQuerySchema,
  agentList,
  ResolveBodySchema,
  resolveRequest,
} from '../../agents/index.js';
import { defineTool } from '../tool.js';

export const agentTools = [
  defineTool({
    name: 'agents_list',
    description:
      'The agent CLIs svc can run (claude, codex, cursor): availability, version, login, verdicts, models, efforts and usage quota. `refresh: true` re-probes.',
    route: 'GET /v1/agents',
    readOnly: true,
    input: { schema: AgentsQuerySchema, from: 'query' },
    run: ({ s }, q) => agentList(s.agents, q),
  }),
  defineTool({
    name: 'workflows_resolve',
    description:
      'What a candidate tasks_create body would run with, before it exists: per step the agent, model and effort with where each comes from, and with `project_id` the branch.',
    route: 'POST /v1/resolve',
    readOnly: true,
    input: { schema: ResolveBodySchema, from: 'body' },
    run: ({ s }, body) => resolveRequest(s, body),
  }),
];
