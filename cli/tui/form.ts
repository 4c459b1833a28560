/**
 * The new-task form: its rows come from the project list, the workflow list of that project's
 * view and the chosen workflow's `fields[]` declarations (SPEC §2.8), checked here by the same
 * rules the daemon applies at creation so a mistake shows before the round trip (the daemon still
 * has the last word). The body it builds is both the `POST /v1/tasks` body and the candidate sent
 * to `POST /v1/resolve` for the preview (decision 148).
 */
import type { FieldDecl, Project, ResolveResult, WorkflowRow } from '../../shared/wire-types.js';
import type { Keystroke } from './keys.js';
import { editLine, emptyLine, type Line } from './line-edit.js';

export type Control = 'select' | 'text' | 'toggle' | 'multi';

export interface FormRow {
  /** `project`, `workflow`, `title`, `description`, `branch_name`, `agent`, `model`, `effort`, or `field:<name>`. */
  key: string;
  label: string;
  control: Control;
  options: string[];
  required: boolean;
  help?: string;
  decl?: FieldDecl;
}

export interface FormState {
  projects: Project[];
  /** Workflows of the selected project's view that a task may use. */
  workflows: WorkflowRow[];
  decls: FieldDecl[];
  values: Record<string, string>;
  focus: number;
  /** The option under the cursor of a multi-select row. */
  optionCursor: number;
  /** Editing buffer of the focused text row. */
  line: Line;
  errors: Record<string, string>;
  /** null: not asked yet; `unavailable`: the daemon has no /v1/resolve. */
  preview: ResolveResult | null | 'unavailable';
  /** Why the candidate does not resolve yet (a half-typed agent, a bad branch name). */
  previewError: string | null;
  message: string | null;
}

const scalar = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

/** The declarations a form shows: label defaults to the name, type to string (SPEC §2.8). */
function normalizeDecl(d: FieldDecl): FieldDecl {
  return {
    ...d,
    label: d.label ?? d.name,
    type: d.type ?? 'string',
    required: d.required ?? false,
  };
}

export function usableWorkflows(rows: WorkflowRow[]): WorkflowRow[] {
  return rows.filter((w) => w.status === 'ok' && w.platform_supported !== false);
}

export function formRows(s: Pick<FormState, 'projects' | 'workflows' | 'decls'>): FormRow[] {
  const rows: FormRow[] = [
    {
      key: 'project',
      label: 'Project',
      control: 'select',
      options: s.projects.map((p) => p.name),
      required: true,
    },
    {
      key: 'workflow',
      label: 'Workflow',
      control: 'select',
      options: s.workflows.map((w) => w.name),
      required: true,
    },
    { key: 'title', label: 'Title', control: 'text', options: [], required: true },
    { key: 'description', label: 'Description', control: 'text', options: [], required: false },
  ];
  for (const raw of s.decls) {
    const d = normalizeDecl(raw);
    const base = {
      key: `field:${d.name}`,
      label: d.label ?? d.name,
      required: d.required ?? false,
      help: d.description,
      decl: d,
    };
    if (d.type === 'enum')
      rows.push({
        ...base,
        control: d.multiple ? 'multi' : 'select',
        options: [...(d.required || d.multiple ? [] : ['']), ...(d.values ?? []).map(scalar)],
      });
    else if (d.type === 'boolean')
      rows.push({
        ...base,
        control: 'toggle',
        options: d.required ? ['true', 'false'] : ['', 'true', 'false'],
      });
    else
      rows.push({
        ...base,
        control: 'text',
        options: [],
        help: [
          d.description,
          d.pattern ? `pattern ${d.pattern}` : '',
          d.type !== 'string' ? d.type : '',
        ]
          .filter(Boolean)
          .join(' · '),
      });
  }
  rows.push(
    {
      key: 'branch_name',
      label: 'Branch',
      control: 'text',
      options: [],
      required: false,
      help: 'empty: the branch rule decides',
    },
    {
      key: 'agent',
      label: 'Agent',
      control: 'text',
      options: [],
      required: false,
      help: 'override every agent step',
    },
    { key: 'model', label: 'Model', control: 'text', options: [], required: false },
    { key: 'effort', label: 'Effort', control: 'text', options: [], required: false },
  );
  return rows;
}

/** Defaults a declaration carries, as the stored string (a multiple enum joined with `,`). */
function defaultOf(d: FieldDecl): string {
  if (Array.isArray(d.default)) return d.default.map(scalar).join(',');
  return scalar(d.default);
}

export function initialForm(projects: Project[], selectedProject?: number): FormState {
  const project = projects.find((p) => p.id === selectedProject) ?? projects[0];
  return {
    projects,
    workflows: [],
    decls: [],
    values: { project: project?.name ?? '', workflow: '', title: '', description: '' },
    focus: 0,
    optionCursor: 0,
    line: emptyLine(project?.name ?? ''),
    errors: {},
    preview: null,
    previewError: null,
    message: null,
  };
}

/** A new workflow list for the chosen project: keep the workflow when it is still offered. */
export function withWorkflows(s: FormState, workflows: WorkflowRow[]): FormState {
  const usable = usableWorkflows(workflows);
  const project = selectedProject(s);
  const keep = usable.find((w) => w.name === s.values.workflow);
  const fallback =
    usable.find((w) => w.name === project?.default_workflow) ??
    usable.find((w) => w.name === 'adhoc') ??
    usable[0];
  return {
    ...s,
    workflows: usable,
    values: { ...s.values, workflow: (keep ?? fallback)?.name ?? '' },
  };
}

/** The chosen workflow's declarations: fields start at their defaults; values for other names go. */
export function withDecls(s: FormState, decls: FieldDecl[]): FormState {
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.values)) if (!k.startsWith('field:')) values[k] = v;
  for (const d of decls) values[`field:${d.name}`] = s.values[`field:${d.name}`] ?? defaultOf(d);
  return { ...s, decls, values, errors: {} };
}

export function selectedProject(s: FormState): Project | undefined {
  return s.projects.find((p) => p.name === s.values.project);
}

/** SPEC §2.8 field rules for one value; null when it passes. */
export function fieldProblem(d: FieldDecl, raw: string): string | null {
  const decl = normalizeDecl(d);
  const value = raw.trim();
  if (value === '') return decl.required ? `${decl.label} is required` : null;
  switch (decl.type) {
    case 'integer':
      return /^[+-]?\d+$/.test(value) ? null : `${decl.label} must be a whole number`;
    case 'number':
      return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(value) &&
        Number.isFinite(Number(value))
        ? null
        : `${decl.label} must be a number`;
    case 'boolean':
      return value === 'true' || value === 'false' ? null : `${decl.label} must be true or false`;
    case 'enum': {
      const allowed = (decl.values ?? []).map(scalar);
      const picked = decl.multiple
        ? value
            .split(',')
            .map((v) => v.trim())
            .filter(Boolean)
        : [value];
      const bad = picked.find((v) => !allowed.includes(v));
      return bad === undefined ? null : `${decl.label}: ${bad} is not one of ${allowed.join(', ')}`;
    }
    default: {
      if (!decl.pattern) return null;
      try {
        return new RegExp(decl.pattern).test(value)
          ? null
          : `${decl.label} must match ${decl.pattern}`;
      } catch {
        return null;
      }
    }
  }
}

export function validate(s: FormState): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!selectedProject(s)) errors.project = 'pick a project';
  if (!s.values.workflow) errors.workflow = 'pick a workflow';
  if (!s.values.title?.trim()) errors.title = 'Title is required';
  for (const d of s.decls) {
    const p = fieldProblem(d, s.values[`field:${d.name}`] ?? '');
    if (p) errors[`field:${d.name}`] = p;
  }
  return errors;
}

/** The `POST /v1/tasks` body (and `/v1/resolve` candidate) the form describes. */
export function taskBody(s: FormState): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const project = selectedProject(s);
  if (project) body.project_id = project.id;
  if (s.values.workflow) body.workflow = s.values.workflow;
  for (const k of ['title', 'description', 'branch_name', 'agent', 'model', 'effort']) {
    const v = s.values[k]?.trim();
    if (v) body[k] = v;
  }
  const fields: Record<string, string> = {};
  for (const d of s.decls) {
    const v = s.values[`field:${d.name}`]?.trim();
    if (v) fields[d.name] = v;
  }
  if (Object.keys(fields).length > 0) body.fields = fields;
  return body;
}

function rowAt(s: FormState): FormRow | undefined {
  return formRows(s)[s.focus];
}

/** Moves focus, loading the new row's value into the editing buffer. */
function focusRow(s: FormState, index: number): FormState {
  const rows = formRows(s);
  const focus = Math.max(0, Math.min(rows.length - 1, index));
  const row = rows[focus];
  return { ...s, focus, optionCursor: 0, line: emptyLine(row ? (s.values[row.key] ?? '') : '') };
}

export type FormEvent =
  | { kind: 'state'; state: FormState; changed?: string }
  | { kind: 'submit' }
  | { kind: 'cancel' };

function cycle(options: string[], current: string, by: number): string {
  if (options.length === 0) return current;
  const i = options.indexOf(current);
  const next = i < 0 ? 0 : (i + by + options.length) % options.length;
  return options[next] ?? current;
}

/**
 * One keystroke on the form. Up/down and tab move between rows, enter moves on (and submits on
 * the last row), ctrl+s submits from anywhere, escape leaves. Left/right cycle a select or toggle;
 * on a multi-select they move between options and space ticks one. Text rows edit in place.
 */
export function formKey(s: FormState, k: Keystroke): FormEvent {
  const rows = formRows(s);
  const row = rowAt(s);
  if (k.key.escape) return { kind: 'cancel' };
  if (k.key.ctrl && k.input === 's') return { kind: 'submit' };
  if (k.key.upArrow || (k.key.tab && k.key.shift))
    return { kind: 'state', state: focusRow(s, s.focus - 1) };
  if (k.key.downArrow || k.key.tab) return { kind: 'state', state: focusRow(s, s.focus + 1) };
  if (k.key.return)
    return s.focus >= rows.length - 1
      ? { kind: 'submit' }
      : { kind: 'state', state: focusRow(s, s.focus + 1) };
  if (!row) return { kind: 'state', state: s };
  const set = (value: string): FormEvent => {
    const values = { ...s.values, [row.key]: value };
    const errors = { ...s.errors };
    delete errors[row.key];
    return {
      kind: 'state',
      state: { ...s, values, errors, line: emptyLine(value) },
      changed: row.key,
    };
  };
  const current = s.values[row.key] ?? '';
  switch (row.control) {
    case 'select':
    case 'toggle':
      if (k.key.rightArrow || k.input === ' ') return set(cycle(row.options, current, 1));
      if (k.key.leftArrow) return set(cycle(row.options, current, -1));
      return { kind: 'state', state: s };
    case 'multi': {
      const n = row.options.length;
      if (k.key.rightArrow && n > 0)
        return { kind: 'state', state: { ...s, optionCursor: (s.optionCursor + 1) % n } };
      if (k.key.leftArrow && n > 0)
        return { kind: 'state', state: { ...s, optionCursor: (s.optionCursor - 1 + n) % n } };
      if (k.input === ' ') {
        const option = row.options[s.optionCursor];
        if (option === undefined) return { kind: 'state', state: s };
        const picked = new Set(current.split(',').filter(Boolean));
        if (picked.has(option)) picked.delete(option);
        else picked.add(option);
        // SPEC §2.8 rule 2: the stored set is in declared order.
        const value = row.options.filter((o) => picked.has(o)).join(',');
        const ev = set(value);
        return ev.kind === 'state'
          ? { ...ev, state: { ...ev.state, optionCursor: s.optionCursor } }
          : ev;
      }
      return { kind: 'state', state: s };
    }
    default: {
      const r = editLine(s.line, k);
      if (r.kind !== 'edit') return { kind: 'state', state: s };
      if (r.line.value === s.line.value) return { kind: 'state', state: { ...s, line: r.line } };
      const values = { ...s.values, [row.key]: r.line.value };
      const errors = { ...s.errors };
      delete errors[row.key];
      return { kind: 'state', state: { ...s, values, errors, line: r.line }, changed: row.key };
    }
  }
}

/** Preview lines from `/v1/resolve`: the branch and, per agent step, agent, model and effort with their sources. */
export function previewLines(p: FormState['preview'], error: string | null = null): string[] {
  if (error) return [`preview: ${error}`];
  if (p === null) return [];
  if (p === 'unavailable') return ['preview unavailable: this daemon has no POST /v1/resolve'];
  const lines: string[] = [];
  if (p.branch)
    lines.push(
      p.branch.error
        ? `branch: ${p.branch.error}`
        : `branch ${p.branch.value} (${p.branch.source})`,
    );
  for (const st of p.steps) {
    if (!st.agent) continue;
    const part = (r: { value: string; source: string } | null, what: string) =>
      r ? `${r.value || `${what}: CLI default`} (${r.source})` : '';
    lines.push(
      `step ${st.id ?? st.index + 1}: ${[part(st.agent, 'agent'), part(st.model, 'model'), part(st.effort, 'effort')].filter(Boolean).join(' · ')}`,
    );
  }
  return lines;
}
