/**
 * What task creation asks of the workflow room (the engine's WorkflowPort, SPEC §4.4 rules 3 and
 * 4): the frozen snapshot of a workflow in a project's view, and the four field rules against its
 * declarations. Refusals are 400 `validation_failed` naming the workflow (`details.field`) with the
 * findings in `details.errors`; a name the view does not have is a 400 too, since the request,
 * not a route, named it.
 */

import { isSvcError, SvcError } from '../errors.js';
import type { Finding } from '../input/index.js';
import { clipText } from '../input/index.js';
import type { FieldDecl } from './fields.js';
import { validateTaskFields } from './fields.js';
import type { WorkflowRegistry } from './registry.js';
import type { WorkflowOrigin, WorkflowSnapshot } from './snapshot.js';

export interface TaskWorkflow {
  snapshot: WorkflowSnapshot;
  origin: WorkflowOrigin;
  warnings: string[];
}

export type TaskFieldCheck =
  | { ok: true; fields: Record<string, string>; defaulted: string[] }
  | { ok: false; message: string; field: string };

export interface TaskWorkflows {
  forTask(name: string, project: { id: number; name?: string }): TaskWorkflow;
  checkFields(
    snapshot: Readonly<Record<string, unknown>>,
    fields: Record<string, string>,
  ): TaskFieldCheck;
}

function summary(findings: readonly Finding[]): string {
  return findings.map((f) => f.message).join('; ');
}

export function taskWorkflowsFrom(registry: WorkflowRegistry): TaskWorkflows {
  return {
    forTask(name, project) {
      let result: ReturnType<WorkflowRegistry['snapshot']>;
      try {
        result = registry.snapshot(name, project.id);
      } catch (err) {
        if (isSvcError(err) && err.code === 'not_found')
          throw new SvcError(
            'validation_failed',
            `no workflow named ${clipText(name)} in the view of project ${project.name ?? project.id}`,
            { field: 'workflow' },
          );
        throw err;
      }
      if (!result.ok) {
        throw new SvcError('validation_failed', `workflow ${name}: ${summary(result.errors)}`, {
          field: 'workflow',
          errors: result.errors,
        });
      }
      return {
        snapshot: result.snapshot,
        origin: result.snapshot.workflow_origin,
        warnings: result.warnings.map((w) => w.message),
      };
    },
    checkFields(snapshot, fields) {
      const declared = Array.isArray(snapshot.fields) ? (snapshot.fields as FieldDecl[]) : [];
      const r = validateTaskFields(declared, fields);
      if (r.ok) return r;
      return { ok: false, message: summary(r.errors), field: r.errors[0]?.path ?? 'fields' };
    },
  };
}
