/**
 * The wire shapes of triggers (SPEC §2.6): the list row, with `armed` and the first missing
 * condition in `disarmed_reason` (the file does not validate, the trigger is disabled, the
 * global switch is off — in that order), and the delivery ledger row.
 */
import type { TriggerDeliveryRow, TriggerStateRow } from '../store/index.js';
import { onFireOf, permissionOf } from './definition.js';
import type { TriggerFile } from './files.js';
import type { TriggerFinding } from './validate.js';

export type DisarmedReason = 'invalid' | 'disabled' | 'triggers_disabled';

export interface PollHealth {
  seeded: boolean;
  last_poll_at: string | null;
  ok: boolean | null;
  error: string | null;
  last_fire_at: string | null;
  /** Events past the 20-event cap at the last poll (decision 196). */
  held_back: number;
  /** Of those, the ones the ledger recorded `truncated` (the rest come again at the next poll). */
  truncated: number;
}

export interface TriggerRow {
  id: string;
  file: string;
  version: string;
  valid: boolean;
  errors: TriggerFinding[];
  enabled: boolean;
  armed: boolean;
  disarmed_reason?: DisarmedReason;
  source_type?: string;
  action_type?: string;
  project_id?: number;
  on_fire?: string;
  permission?: string;
  poll: PollHealth;
}

export function disarmedReason(file: TriggerFile, globalOn: boolean): DisarmedReason | null {
  if (!file.validation.definition) return 'invalid';
  if (!file.validation.definition.enabled) return 'disabled';
  if (!globalOn) return 'triggers_disabled';
  return null;
}

export function pollHealth(state: TriggerStateRow | undefined): PollHealth {
  return {
    seeded: state?.seeded === 1,
    last_poll_at: state?.last_poll_at ?? null,
    ok: state?.ok === null || state?.ok === undefined ? null : state.ok === 1,
    error: state?.error ?? null,
    last_fire_at: state?.last_fire_at ?? null,
    held_back: state?.held_back ?? 0,
    truncated: state?.truncated ?? 0,
  };
}

export function triggerRow(
  file: TriggerFile,
  globalOn: boolean,
  state: TriggerStateRow | undefined,
): TriggerRow {
  const def = file.validation.definition;
  const reason = disarmedReason(file, globalOn);
  const row: TriggerRow = {
    id: file.id,
    file: file.file,
    version: file.version,
    valid: def !== null,
    errors: file.validation.findings,
    enabled: def ? def.enabled : file.validation.enabled,
    armed: reason === null,
    poll: pollHealth(state),
  };
  if (reason) row.disarmed_reason = reason;
  if (def) {
    row.source_type = def.source.type;
    row.action_type = def.action.type;
    row.project_id = def.project_id;
    row.on_fire = onFireOf(def);
    const permission = permissionOf(def);
    if (permission) row.permission = permission;
  }
  return row;
}

export interface DeliveryView {
  id: number;
  trigger_id: string;
  event_id: string;
  dedupe_key: string | null;
  concurrency_key: string | null;
  outcome: string;
  task_id: number | null;
  superseded_task_id: number | null;
  created_at: string;
  detail: unknown;
}

export function deliveryView(row: TriggerDeliveryRow): DeliveryView {
  let detail: unknown = null;
  if (row.detail !== null) {
    try {
      detail = JSON.parse(row.detail);
    } catch {
      detail = row.detail;
    }
  }
  return {
    id: row.id,
    trigger_id: row.trigger_id,
    event_id: row.event_id,
    dedupe_key: row.dedupe_key,
    concurrency_key: row.concurrency_key,
    outcome: row.outcome,
    task_id: row.task_id,
    superseded_task_id: row.superseded_task_id,
    created_at: row.created_at,
    detail,
  };
}
