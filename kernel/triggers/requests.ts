/**
 * The read side of the trigger routes (SPEC §4.6): the list, one trigger, the dry-run test body
 * and the ledger, shared by the HTTP routes and the MCP tools so both parse the same schemas and
 * run the same code (decision 121).
 */
import { z } from 'zod';
import { SvcError } from '../errors.js';
import { triggerIdProblem } from './definition.js';
import type { TriggerService } from './runtime.js';
import { triggerRow } from './view.js';

export const TriggerTestBodySchema = z.strictObject({
  event: z
    .record(z.string(), z.unknown(), { error: 'event must be a JSON object' })
    .describe(
      'A sample event as the trigger’s source would deliver it (a JSON object); judged, never acted on.',
    ),
});

export const TriggerDeliveriesQuerySchema = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,7}$/, 'limit must be a whole number from 1 to 1000')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 1000, 'limit must be from 1 to 1000')
    .optional()
    .describe('At most this many deliveries, newest first (1 to 1000).'),
});

/** `GET /v1/triggers`. */
export function triggerList(triggers: TriggerService, dir: string) {
  return {
    enabled: triggers.globalOn,
    dir,
    triggers: triggers.files
      .list()
      .map((f) => triggerRow(f, triggers.globalOn, triggers.state.get(f.id))),
  };
}

/** The file and row of one trigger, or 404. */
export function triggerFileRow(triggers: TriggerService, id: string) {
  const file = triggers.files.read(id);
  if (!file) throw new SvcError('not_found', `trigger ${id} not found`);
  return { file, row: triggerRow(file, triggers.globalOn, triggers.state.get(id)) };
}

/** `GET /v1/triggers/{id}`: the row, the file's bytes and its parsed definition. */
export function triggerDetail(triggers: TriggerService, id: string) {
  const { file, row } = triggerFileRow(triggers, id);
  return { ...row, source: file.text ?? '', definition: file.validation.definition };
}

/** `GET /v1/triggers/{id}/deliveries`: the ledger, newest first; a trigger with a ledger but no file still has one. */
export function triggerDeliveries(triggers: TriggerService, id: string, limit = 100) {
  const known =
    triggerIdProblem(id) === null &&
    (triggers.files.read(id) !== null || triggers.deliveries.any(id));
  if (!known) throw new SvcError('not_found', `trigger ${id} not found`);
  return { deliveries: triggers.ledger(id, limit) };
}
