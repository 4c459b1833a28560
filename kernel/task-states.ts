/** The ten task states of SPEC §3.1, shared by the engine, config (`notify.on`) and clients. */
export const TASK_STATES = [
  'queued',
  'running',
  'awaiting_gate',
  'awaiting_input',
  'awaiting_children',
  'blocked',
  'paused',
  'done',
  'aborted',
  'archived',
] as const;

export type TaskState = (typeof TASK_STATES)[number];

/** States that hold a scheduler slot (SPEC §3.1). */
export const SLOT_STATES: readonly TaskState[] = ['running', 'awaiting_input'];
