/**
 * `POST /v1/workflows` (SPEC §4.3): a new workflow file in the global or a project's scope, either
 * a starter template with its `name:` set or a byte copy of an existing entry (`from`), which keeps
 * the source's own `name:` so the copy shadows the original. The daemon picks the path
 * (`<dir>/<name>.yaml`), creates the directory, writes mode 0644, and refuses with 409 when the
 * destination exists or another file of the scope already declares the name. Nothing is written
 * on any refusal.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { SvcError } from '../errors.js';
import type { Finding } from '../input/index.js';
import { starterWorkflow } from './builtins.js';
import { CREATE_NAME_PATTERN } from './format.js';
import type { WorkflowRegistry } from './registry.js';
import { projectWorkflowsDir } from './registry-loading.js';
import type { WorkflowScope } from './snapshot.js';
import { MAX_WORKFLOW_BYTES } from './source.js';

/** Every write answers this (SPEC §2.7). */
export interface WorkflowWriteResult {
  name: string;
  scope: WorkflowScope;
  project_id: number | null;
  file: string;
  version: string;
  errors: Finding[];
  warnings: Finding[];
}

const projectId = z
  .number({ error: 'must be a project id' })
  .int('must be a project id')
  .positive('must be a project id');

export const CreateWorkflowBodySchema = z
  .strictObject({
    scope: z.enum(['global', 'project'], {
      error: 'scope must be global or project (built-in workflows are read-only)',
    }),
    name: z
      .string({ error: 'name must be a string' })
      .max(255, 'name is over 255 bytes')
      .regex(
        CREATE_NAME_PATTERN,
        'name must be lowercase letters, digits, "-", "_" or ".", starting with a letter or digit',
      )
      .optional(),
    project_id: projectId.optional(),
    from: z.string({ error: 'from must be a workflow name' }).min(1).optional(),
    from_project_id: projectId.optional(),
  })
  .superRefine((b, ctx) => {
    if (b.name === undefined && b.from === undefined)
      ctx.addIssue({ code: 'custom', path: ['name'], message: 'name is required (or from)' });
    if (b.scope === 'project' && b.project_id === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['project_id'],
        message: 'project_id is required for scope project',
      });
    if (b.scope === 'global' && b.project_id !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['project_id'],
        message: 'project_id is only for scope project',
      });
    if (b.from_project_id !== undefined && b.from === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['from_project_id'],
        message: 'from_project_id is only used with from',
      });
  });

export type CreateWorkflowBody = z.infer<typeof CreateWorkflowBodySchema>;

/** The scope directory a write goes to, and the root `workflow_origin.file` is relative to. */
export function scopeDir(
  registry: WorkflowRegistry,
  scope: 'global' | 'project',
  projectId: number | undefined,
): { dir: string; projectId: number | null } {
  if (scope === 'global') return { dir: registry.globalDir, projectId: null };
  const project = registry.project(projectId as number);
  return { dir: projectWorkflowsDir(project.path), projectId: project.id };
}

/** The write shape for the file as it now is. */
export function writeResult(
  registry: WorkflowRegistry,
  file: string,
  scope: 'global' | 'project',
  projectId: number | null,
): WorkflowWriteResult {
  const entry = registry
    .view(projectId ?? undefined)
    .entries.find((e) => e.file === file && e.scope === scope);
  if (!entry) throw new SvcError('internal', 'the written workflow is not in the registry');
  return {
    name: entry.name,
    scope,
    project_id: projectId,
    file,
    version: entry.version,
    errors: entry.validation.errors,
    warnings: entry.validation.warnings,
  };
}

/** The file of this scope that already declares `name`, if any (other than `except`). */
export function declaringFile(
  registry: WorkflowRegistry,
  scope: 'global' | 'project',
  projectId: number | null,
  name: string,
  except?: string,
): string | null {
  const found = registry
    .view(projectId ?? undefined)
    .entries.find((e) => e.scope === scope && e.name === name && e.file !== except);
  return found?.file ?? null;
}

export function createWorkflow(
  registry: WorkflowRegistry,
  body: CreateWorkflowBody,
): WorkflowWriteResult {
  const { dir, projectId } = scopeDir(registry, body.scope, body.project_id);
  let text: string;
  if (body.from !== undefined) {
    const source = registry.entry(body.from, body.from_project_id);
    if (source.text === null)
      throw new SvcError(
        'validation_failed',
        `workflow ${body.from} is over 1 MiB and cannot be copied`,
        {
          field: 'from',
        },
      );
    text = source.text;
  } else {
    text = starterWorkflow(body.name as string);
  }
  const name = body.name ?? (body.from as string);
  if (!CREATE_NAME_PATTERN.test(name))
    throw new SvcError(
      'validation_failed',
      `name ${JSON.stringify(name)} is not a file name svc writes; give name (lowercase letters, digits, "-", "_" or ".")`,
      { field: 'name' },
    );
  if (Buffer.byteLength(text) > MAX_WORKFLOW_BYTES)
    throw new SvcError('payload_too_large', 'the workflow would be over 1 MiB', {
      limit: MAX_WORKFLOW_BYTES,
    });
  const file = join(dir, `${name}.yaml`);
  for (const candidate of [file, join(dir, `${name}.yml`)]) {
    if (existsSync(candidate))
      throw new SvcError('invalid_state', `${candidate} already exists`, {
        reason: 'destination_exists',
        file: candidate,
      });
  }
  const declared = registry.validate(text).declaredName ?? name;
  const taken = declaringFile(registry, body.scope, projectId, declared);
  if (taken)
    throw new SvcError('invalid_state', `${taken} already declares the workflow name ${declared}`, {
      reason: 'name_taken',
      file: taken,
    });

  mkdirSync(dir, { recursive: true, mode: 0o755 });
  registry.noteOwnWrite(file, text);
  // 'wx' refuses a file that appeared since the check; new files are 0644 whatever the umask.
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o644);
  } catch {
    throw new SvcError('invalid_state', `${file} already exists`, {
      reason: 'destination_exists',
      file,
    });
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  if (process.platform !== 'win32') chmodSync(file, 0o644);
  registry.announce(body.scope, projectId, [file]);
  return writeResult(registry, file, body.scope, projectId);
}
