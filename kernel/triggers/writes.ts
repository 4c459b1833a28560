/**
 * Trigger writes (SPEC §4.6): create a disabled starter, PATCH with the workflow edit ops applied
 * to the file's own bytes (comments, order and quoting outside the touched lines stay identical),
 * DELETE with a version. Refusals write nothing; every write leaves the file mode 0600 and is
 * applied at once (the runtime reloads before the response).
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { applyEdits, type EditOp, MAX_EDIT_OPS } from '../../lib/yaml-edit/index.js';
import { tryParseDuration } from '../config/index.js';
import { SvcError } from '../errors.js';
import { triggerIdProblem } from './definition.js';
import type { TriggerFile } from './files.js';
import type { TriggerService } from './runtime.js';
import { MAX_TRIGGER_BYTES } from './source-text.js';

export const CreateTriggerSchema = z.strictObject({
  id: z.string({ error: 'id is required' }),
  project_id: z
    .number({ error: 'project_id is required (a project id)' })
    .int('project_id must be a project id')
    .positive('project_id must be a project id'),
  poll_interval: z
    .string()
    .refine(
      (v) => (tryParseDuration(v) ?? 0) > 0,
      'poll_interval must be a positive duration such as 5m',
    )
    .optional(),
  command: z
    .array(z.string().min(1, 'command items must not be empty'), {
      error: 'command is argv: a list of strings',
    })
    .min(1, 'command must name a program')
    .optional(),
  workflow: z.string().min(1).max(256).optional(),
  title: z.string().min(1).max(1024).optional(),
});
export type CreateTriggerBody = z.infer<typeof CreateTriggerSchema>;

export const PatchTriggerSchema = z.strictObject({
  version: z.string({ error: 'version is required' }).min(1, 'version is required'),
  ops: z
    .array(z.unknown(), { error: 'ops must be a list of edit operations' })
    .max(MAX_EDIT_OPS, `ops is over the limit of ${MAX_EDIT_OPS} operations`),
});
export type PatchTriggerBody = z.infer<typeof PatchTriggerSchema>;

export interface TriggerWriteResult {
  id: string;
  file: string;
  version: string;
  errors: TriggerFile['validation']['findings'];
}

const q = (v: unknown) => JSON.stringify(v);

/** The disabled starter: a command source and a create_task action with a placeholder title. */
export function starterText(body: CreateTriggerBody): string {
  const lines = [
    `# Trigger ${body.id}. Written disabled: try it with \`svc trigger test ${body.id} '{"id": "1"}'\``,
    '# and `svc trigger poll`, then set enabled: true (triggers.enabled must be on in config.yaml).',
    `id: ${q(body.id)}`,
    'enabled: false',
    `project_id: ${body.project_id}`,
    'source:',
    '  type: command',
    '  # argv, no shell. Prints one JSON event per line ({"id": "..."}), and may print {"cursor": "..."};',
    '  # the last cursor comes back in $SVC_TRIGGER_CURSOR on the next poll.',
    `  command: [${(body.command ?? ['true']).map(q).join(', ')}]`,
    `  poll_interval: ${q(body.poll_interval ?? '5m')}`,
    'action:',
    '  type: create_task',
    `  title: ${q(body.title ?? 'Event {{.Event.id}} from trigger {{.Trigger.ID}}')}`,
  ];
  if (body.workflow !== undefined) lines.push(`  workflow: ${q(body.workflow)}`);
  return `${lines.join('\n')}\n`;
}

function result(triggers: TriggerService, id: string): TriggerWriteResult {
  const f = triggers.files.read(id) as TriggerFile;
  return { id, file: f.file, version: f.version, errors: f.validation.findings };
}

export function createTrigger(
  triggers: TriggerService,
  raw: CreateTriggerBody,
): TriggerWriteResult {
  const problem = triggerIdProblem(raw.id);
  if (problem)
    throw new SvcError('validation_failed', `id ${q(raw.id)} ${problem}`, { field: 'id' });
  if (!triggers.projectExists(raw.project_id))
    throw new SvcError('not_found', `project ${raw.project_id} not found`);
  if (existsSync(triggers.files.pathOf(raw.id)))
    throw new SvcError('invalid_state', `trigger ${raw.id} already exists`, {
      reason: 'trigger_exists',
    });
  const text = starterText(raw);
  const v = triggers.files.validate(text, raw.id);
  if (v.findings.length > 0)
    throw new SvcError(
      'validation_failed',
      `the starter does not validate: ${v.findings.map((f) => f.message).join('; ')}`,
      { errors: JSON.stringify(v.findings) },
    );
  triggers.files.write(raw.id, text);
  triggers.reload('api');
  return result(triggers, raw.id);
}

export function patchTrigger(
  triggers: TriggerService,
  id: string,
  body: PatchTriggerBody,
): TriggerWriteResult {
  const file = triggers.files.read(id);
  if (!file || file.text === null) throw new SvcError('not_found', `trigger ${id} not found`);
  if (body.version !== file.version)
    throw new SvcError('invalid_state', `trigger ${id} changed since version ${body.version}`, {
      reason: 'stale_version',
      version: file.version,
    });
  const edited = applyEdits(file.text, body.ops as EditOp[]);
  if (!edited.ok) {
    const errors = edited.findings.map((f) => ({
      path: f.path,
      code: f.code,
      op_index: f.op_index,
      message: f.op_index >= 0 ? `ops[${f.op_index}] (${f.path}): ${f.message}` : f.message,
    }));
    throw new SvcError(
      'validation_failed',
      `the edit cannot be applied: ${errors.map((e) => e.message).join('; ')}`,
      { errors: JSON.stringify(errors) },
    );
  }
  if (Buffer.byteLength(edited.text, 'utf8') > MAX_TRIGGER_BYTES)
    throw new SvcError(
      'payload_too_large',
      `the edited trigger would be over 1 MiB (${MAX_TRIGGER_BYTES} bytes); nothing was written`,
      { limit: MAX_TRIGGER_BYTES },
    );
  const v = triggers.files.validate(edited.text, id);
  if (v.findings.length > 0)
    throw new SvcError(
      'validation_failed',
      `the edited trigger does not validate: ${v.findings.map((f) => f.message).join('; ')}`,
      { errors: JSON.stringify(v.findings) },
    );
  if (edited.text !== file.text) {
    triggers.files.write(id, edited.text);
    triggers.reload('api');
  }
  return result(triggers, id);
}

export function deleteTrigger(
  triggers: TriggerService,
  id: string,
  version: string | undefined,
): void {
  if (version === undefined || version === '')
    throw new SvcError('validation_failed', 'query parameter version is required', {
      field: 'version',
    });
  const file = triggers.files.read(id);
  if (!file) throw new SvcError('not_found', `trigger ${id} not found`);
  if (version !== file.version)
    throw new SvcError('invalid_state', `trigger ${id} changed since version ${version}`, {
      reason: 'stale_version',
      version: file.version,
    });
  triggers.files.remove(id);
  triggers.forget(id);
  triggers.reload('api');
}
