/**
 * Trigger tools (SPEC §4.6): the list, one trigger, its ledger and the dry-run test, through the
 * same functions as the routes. Writes, the schema and validate (editor aids for writing files),
 * the dry poll (it runs the source's command) and the ingress are not tools (decision 124).
 */
import {
  dryTest,
  TriggerDeliveriesQuerySchema,
  TriggerTestBodySchema,
  triggerDeliveries,
  triggerDetail,
  triggerList,
} from '../../triggers/index.js';
import { defineTool, type ToolId } from '../tool.js';

const TRIGGER: ToolId = { key: 'trigger_id', what: 'trigger', kind: 'name' };

export const triggerTools = [
  defineTool({
    name: 'triggers_list',
    description:
      'The trigger files: `{enabled, dir, triggers[]}`, each row with its source, action, armed state and last fire.',
    route: 'GET /v1/triggers',
    readOnly: true,
    run: ({ s }) => triggerList(s.triggers, s.paths.triggersDir),
  }),
  defineTool({
    name: 'triggers_show',
    description: 'One trigger: its row, the file text (`source`) and the parsed `definition`.',
    route: 'GET /v1/triggers/:id',
    readOnly: true,
    ids: [TRIGGER],
    run: ({ s }, _input, ids) => triggerDetail(s.triggers, String(ids.trigger_id)),
  }),
  defineTool({
    name: 'triggers_deliveries',
    description: 'A trigger’s delivery ledger, newest first (`limit` 1 to 1000, default 100).',
    route: 'GET /v1/triggers/:id/deliveries',
    readOnly: true,
    ids: [TRIGGER],
    input: { schema: TriggerDeliveriesQuerySchema, from: 'query' },
    run: ({ s }, q, ids) => triggerDeliveries(s.triggers, String(ids.trigger_id), q.limit),
  }),
  defineTool({
    name: 'triggers_test',
    description:
      'Judge an `event` (a JSON object) against a trigger as a live delivery would, without firing or recording anything.',
    route: 'POST /v1/triggers/:id/test',
    readOnly: true,
    ids: [TRIGGER],
    input: { schema: TriggerTestBodySchema, from: 'body' },
    run: ({ s }, body, ids) => dryTest(s.triggers, String(ids.trigger_id), body.event),
  }),
];
