/**
 * The new-task form (issue 23 point 5): inputs from the workflow's declared `fields[]` (type,
 * enum values, required, multiple), the body `POST /v1/tasks` takes, and the API's validation
 * error placed next to the input it names (`details.field`: `title`, `fields.ticket`, …). Pure.
 */
import type { FieldDecl } from '../../shared/wire-types.js';

export type InputKind = 'text' | 'number' | 'integer' | 'boolean' | 'select' | 'multi';

export function inputKind(d: FieldDecl): InputKind {
  if (d.type === 'enum' || (d.values && d.values.length > 0))
    return d.multiple ? 'multi' : 'select';
  if (d.type === 'boolean') return 'boolean';
  if (d.type === 'integer') return 'integer';
  if (d.type === 'number') return 'number';
  return 'text';
}

/** A declaration's default as the stored string (a multiple enum joined with `,`). */
export function defaultValue(d: FieldDecl): string {
  if (d.default === undefined) return '';
  if (Array.isArray(d.default)) return d.default.map(String).join(',');
  return String(d.default);
}

export interface TaskForm {
  project_id: number | null;
  workflow: string;
  title: string;
  description: string;
  fields: Record<string, string>;
  agent: string;
  model: string;
  effort: string;
  paused: boolean;
}

/** The create body: blank optional inputs are left out so the workflow's defaults apply. */
export function createBody(f: TaskForm, decls: readonly FieldDecl[]): Record<string, unknown> {
  const fields: Record<string, string> = {};
  for (const d of decls) {
    const v = f.fields[d.name] ?? '';
    if (v !== '') fields[d.name] = v;
  }
  return {
    ...(f.project_id !== null ? { project_id: f.project_id } : {}),
    ...(f.workflow ? { workflow: f.workflow } : {}),
    title: f.title,
    ...(f.description.trim() ? { description: f.description } : {}),
    ...(Object.keys(fields).length > 0 ? { fields } : {}),
    ...(f.agent ? { agent: f.agent } : {}),
    ...(f.model ? { model: f.model } : {}),
    ...(f.effort ? { effort: f.effort } : {}),
    ...(f.paused ? { paused: true } : {}),
  };
}

/**
 * Which input an API error belongs to: `fields.ticket` → the ticket input, `title` → title;
 * a field the form has no input for goes to the form as a whole (`''`).
 */
export function errorTarget(named: unknown, inputs: readonly string[]): string {
  if (typeof named !== 'string' || named === '') return '';
  // Some daemons name a field error `fields.fields.<name>`: read it as `fields.<name>`.
  const field = named.replace(/^(fields\.)+/, 'fields.');
  if (inputs.includes(field)) return field;
  const top = field.split(/[.[]/)[0] ?? '';
  if (field.startsWith('fields.')) {
    const name = `fields.${field.slice('fields.'.length).split(/[.[]/)[0]}`;
    if (inputs.includes(name)) return name;
  }
  return inputs.includes(top) ? top : '';
}
