/**
 * Validation of a trigger file's text: YAML, the strict top level, the `source:` block against
 * the registered source of its type, the action against its schema, then the rules that need
 * more than one key or the outside world (the id equals the file name, the project exists, a
 * cancel must say `on_fire: create`). Every finding names a path and, where it can, a line.
 */
import type { z } from 'zod';
import { formatPath, readIssues } from '../input/index.js';
import type { TriggerSource } from '../plugin/index.js';
import {
  ACTION_SCHEMAS,
  ACTION_TYPES,
  TopLevelSchema,
  type TriggerDefinition,
  triggerIdProblem,
} from './definition.js';
import { MAX_TRIGGER_BYTES, parseTriggerText } from './source-text.js';

/** A problem with a trigger file: the dotted path, a stable `code` to branch on, a message, the line. */
export interface TriggerFinding {
  path: string;
  code: string;
  message: string;
  line?: number;
}

export interface TriggerValidationContext {
  source(type: string): TriggerSource | undefined;
  sourceTypes(): string[];
  projectExists(id: number): boolean;
}

export interface TriggerValidation {
  definition: TriggerDefinition | null;
  findings: TriggerFinding[];
  /** `enabled:` as written, read even from an invalid file (false when unreadable). */
  enabled: boolean;
  /** `id:` as written, when it is a string. */
  declaredId: string | null;
}

/** Findings for a zod error on `value`, found at `base` in the file: the one translator's reading. */
function withPrefix(error: z.ZodError, value: unknown, base: string[]): TriggerFinding[] {
  return readIssues(error.issues, { base, value }).map((f) => ({
    path: formatPath(f.path),
    code: f.code,
    message: f.message,
  }));
}

export function validateTriggerText(
  text: string,
  ctx: TriggerValidationContext,
  expectId?: string,
): TriggerValidation {
  const fail = (findings: TriggerFinding[], raw?: Record<string, unknown>): TriggerValidation => ({
    definition: null,
    findings,
    enabled: raw?.enabled === true,
    declaredId: typeof raw?.id === 'string' ? raw.id : null,
  });
  if (Buffer.byteLength(text, 'utf8') > MAX_TRIGGER_BYTES)
    return fail([
      {
        path: '',
        code: 'too_large',
        message: `the file is over 1 MiB (${MAX_TRIGGER_BYTES} bytes)`,
      },
    ]);
  const parsed = parseTriggerText(text);
  if (!parsed.ok)
    return fail([
      {
        path: '',
        code: 'yaml_syntax',
        message: parsed.message,
        ...(parsed.line ? { line: parsed.line } : {}),
      },
    ]);
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail([
      {
        path: '',
        code: 'invalid_type',
        message: 'a trigger file is a mapping of keys (id, source, action…)',
      },
    ]);
  const raw = value as Record<string, unknown>;
  const findings: TriggerFinding[] = [];

  const top = TopLevelSchema.safeParse(raw);
  if (!top.success) findings.push(...withPrefix(top.error, raw, []));

  const id = raw.id;
  if (typeof id === 'string') {
    const problem = triggerIdProblem(id);
    if (problem)
      findings.push({
        path: 'id',
        code: 'invalid_id',
        message: `id ${JSON.stringify(id)} ${problem}`,
      });
    else if (expectId !== undefined && id !== expectId)
      findings.push({
        path: 'id',
        code: 'id_mismatch',
        message: `id ${JSON.stringify(id)} must equal the file name (${expectId})`,
      });
  }

  let source: Record<string, unknown> | null = null;
  const rawSource = raw.source as Record<string, unknown> | undefined;
  if (rawSource && typeof rawSource === 'object' && typeof rawSource.type === 'string') {
    const plugin = ctx.source(rawSource.type);
    if (!plugin) {
      findings.push({
        path: 'source.type',
        code: 'unknown_source_type',
        message: `source.type ${JSON.stringify(rawSource.type)} is not one of ${ctx.sourceTypes().join(', ')}`,
      });
    } else {
      const r = plugin.schema.safeParse(rawSource);
      if (r.success) source = r.data as Record<string, unknown>;
      else findings.push(...withPrefix(r.error, rawSource, ['source']));
    }
  }

  let action: TriggerDefinition['action'] | null = null;
  const rawAction = raw.action as Record<string, unknown> | undefined;
  if (rawAction && typeof rawAction === 'object' && typeof rawAction.type === 'string') {
    const type = rawAction.type as (typeof ACTION_TYPES)[number];
    const schema = ACTION_SCHEMAS[type];
    if (!schema) {
      findings.push({
        path: 'action.type',
        code: 'unknown_action_type',
        message: `action.type ${JSON.stringify(rawAction.type)} is not one of ${ACTION_TYPES.join(', ')}`,
      });
    } else {
      const r = schema.safeParse(rawAction);
      if (r.success) action = r.data;
      else findings.push(...withPrefix(r.error, rawAction, ['action']));
    }
  }

  if (typeof raw.project_id === 'number' && Number.isInteger(raw.project_id)) {
    if (raw.project_id > 0 && !ctx.projectExists(raw.project_id))
      findings.push({
        path: 'project_id',
        code: 'unknown_project',
        message: `project ${raw.project_id} not found`,
      });
  }
  if (rawAction?.type === 'cancel' && raw.on_fire !== 'create') {
    findings.push({
      path: 'on_fire',
      code: 'cancel_needs_create',
      message:
        'a cancel acts at once and cannot be proposed for review; write on_fire: create to accept that',
    });
  }

  const located = findings.map((f) => {
    const line = parsed.lineOf(f.path);
    return line !== undefined ? { ...f, line } : f;
  });
  // In file order, as an editor shows them; the sort is stable for findings on one line.
  located.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  if (located.length > 0 || !top.success || !source || !action) {
    if (located.length === 0)
      located.push({ path: '', code: 'invalid', message: 'the file does not validate' });
    return fail(located, raw);
  }
  const definition: TriggerDefinition = {
    ...top.data,
    source: source as TriggerDefinition['source'],
    action,
  };
  return { definition, findings: [], enabled: definition.enabled, declaredId: definition.id };
}
