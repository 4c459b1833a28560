/**
 * `PATCH /v1/workflows` (SPEC §4.3; decision 030): edit ops applied to a workflow file's own bytes
 * through the byte-preserving YAML editor, so comments, key order, blank lines, block scalars and
 * CRLF outside the touched lines stay identical. The target entry is named like a read (`name`,
 * optional `project_id` view) and narrowed by `scope` and `file` when a name has several entries.
 * Refusals write nothing: a stale `version` is 409 with the current one in `details.version`, an
 * op that cannot apply or a result that no longer parses is 400 with findings in
 * `details.errors`, a result over 1 MiB is 413. A result that parses but does not validate is
 * written and answered with its `errors[]`, as any hand edit would be.
 */
import { statSync } from 'node:fs';
import { z } from 'zod';
import { applyEdits, type EditFinding, MAX_EDIT_OPS } from '../../lib/yaml-edit/index.js';
import { SvcError } from '../errors.js';
import { writeFileAtomic } from '../fsutil.js';
import { clipText } from '../input/index.js';
import { declaringFile, type WorkflowWriteResult, writeResult } from './create.js';
import type { WorkflowRegistry } from './registry.js';
import type { RankedEntry } from './registry-entries.js';
import { MAX_WORKFLOW_BYTES, parseWorkflowSource } from './source.js';

export const PatchWorkflowBodySchema = z.strictObject({
  name: z.string({ error: 'name is required' }).min(1, 'name is required'),
  project_id: z
    .number({ error: 'must be a project id' })
    .int('must be a project id')
    .positive('must be a project id')
    .optional(),
  scope: z
    .enum(['builtin', 'global', 'project'], { error: 'scope must be global or project' })
    .optional(),
  /** The absolute path as listed, or the path relative to its scope root. */
  file: z.string().min(1).optional(),
  version: z.string({ error: 'version is required' }).min(1, 'version is required'),
  ops: z
    .array(z.unknown(), { error: 'ops must be a list of edit operations' })
    .max(MAX_EDIT_OPS, `ops is over the limit of ${MAX_EDIT_OPS} operations`),
});

export type PatchWorkflowBody = z.infer<typeof PatchWorkflowBodySchema>;

/** The entry a patch addresses: the winner of the name unless scope or file pick another. */
export function patchTarget(registry: WorkflowRegistry, body: PatchWorkflowBody): RankedEntry {
  const view = registry.view(body.project_id);
  const matches = view.entries.filter(
    (e) =>
      e.name === body.name &&
      (body.scope === undefined || e.scope === body.scope) &&
      (body.file === undefined || e.file === body.file || e.relFile === body.file),
  );
  const target = matches.find((e) => e.winner) ?? matches[0];
  if (!target) {
    const where = [body.scope && `scope ${body.scope}`, body.file && `file ${clipText(body.file)}`]
      .filter(Boolean)
      .join(', ');
    throw new SvcError(
      'not_found',
      `no workflow named ${clipText(body.name)}${where ? ` (${where})` : ''}`,
    );
  }
  if (target.scope === 'builtin' || target.file === null) {
    throw new SvcError(
      'validation_failed',
      `${body.name} is built in and read-only; copy it with POST /v1/workflows {"from": "${body.name}"} and edit the copy`,
      { field: 'scope' },
    );
  }
  return target;
}

function editFindings(findings: readonly EditFinding[]) {
  return findings.map((f) => ({
    path: f.path,
    code: f.code,
    op_index: f.op_index,
    message: f.op_index >= 0 ? `ops[${f.op_index}] (${f.path}): ${f.message}` : f.message,
  }));
}

export function patchWorkflow(
  registry: WorkflowRegistry,
  body: PatchWorkflowBody,
): WorkflowWriteResult {
  const target = patchTarget(registry, body);
  const file = target.file as string;
  const scope = target.scope as 'global' | 'project';
  if (body.version !== target.version) {
    throw new SvcError('invalid_state', `${file} changed since version ${body.version}`, {
      reason: 'stale_version',
      version: target.version,
    });
  }
  if (target.text === null) {
    throw new SvcError('payload_too_large', `${file} is over 1 MiB and cannot be edited here`, {
      limit: MAX_WORKFLOW_BYTES,
    });
  }
  if (body.ops.length === 0) return writeResult(registry, file, scope, target.project_id);

  const edited = applyEdits(target.text, body.ops as Parameters<typeof applyEdits>[1]);
  if (!edited.ok) {
    const errors = editFindings(edited.findings);
    throw new SvcError(
      'validation_failed',
      `the edit cannot be applied: ${errors.map((e) => e.message).join('; ')}`,
      { errors },
    );
  }
  if (Buffer.byteLength(edited.text, 'utf8') > MAX_WORKFLOW_BYTES) {
    throw new SvcError(
      'payload_too_large',
      `the edited workflow would be over 1 MiB (${MAX_WORKFLOW_BYTES} bytes); nothing was written`,
      { limit: MAX_WORKFLOW_BYTES },
    );
  }
  const parsed = parseWorkflowSource(edited.text);
  if (!parsed.ok) {
    const finding = { path: '', code: 'yaml_syntax', message: parsed.message, line: parsed.line };
    throw new SvcError(
      'validation_failed',
      `the edited workflow would not parse: ${parsed.message}`,
      {
        errors: [finding],
      },
    );
  }
  const declared = registry.validate(edited.text).declaredName;
  if (declared !== null && declared !== target.name) {
    const taken = declaringFile(registry, scope, target.project_id, declared, file);
    if (taken)
      throw new SvcError(
        'invalid_state',
        `${taken} already declares the workflow name ${declared}`,
        {
          reason: 'name_taken',
          file: taken,
        },
      );
  }
  if (edited.text !== target.text) {
    // Existing files keep their mode.
    const mode = statSync(file).mode & 0o777;
    registry.noteOwnWrite(file, edited.text);
    writeFileAtomic(file, edited.text, mode);
    registry.announce(scope, target.project_id, [file]);
  }
  return writeResult(registry, file, scope, target.project_id);
}
