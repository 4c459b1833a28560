/**
 * The new-task form (issue 23 point 5): project and workflow, title and description, an input per
 * declared field (type, enum values, required, multiple), and the agent, model and effort each
 * agent step would run with, as `POST /v1/resolve` reads them while you type. The API judges the
 * task; its validation error is shown next to the input it names.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { FieldDecl, ResolveResult, TaskRow, WorkflowRow } from '../../shared/wire-types.js';
import { ApiError } from '../api.js';
import { go, useLive } from '../hooks.js';
import { createBody, defaultValue, errorTarget, inputKind, type TaskForm } from '../lib/form.js';
import type { Live } from '../live.js';

export function NewTaskView({ live }: { live: Live }) {
  useLive(live);
  const api = live.api;
  const [form, setForm] = useState<TaskForm>({
    project_id: null,
    workflow: '',
    title: '',
    description: '',
    fields: {},
    agent: '',
    model: '',
    effort: '',
    paused: false,
  });
  const [workflows, setWorkflows] = useState<WorkflowRow[]>([]);
  const [resolved, setResolved] = useState<ResolveResult | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  // The first project by default, and its default workflow.
  useEffect(() => {
    if (form.project_id === null && live.projects[0])
      setForm((f) => ({ ...f, project_id: live.projects[0]?.id ?? null }));
  }, [live.projects, form.project_id]);

  useEffect(() => {
    if (form.project_id === null) return;
    let stopped = false;
    void api
      .get<{ workflows: WorkflowRow[] }>('/v1/workflows', { project_id: form.project_id })
      .then((r) => {
        if (stopped) return;
        const usable = r.workflows.filter((w) => w.status === 'ok');
        setWorkflows(usable);
        const project = live.projects.find((p) => p.id === form.project_id);
        setForm((f) => {
          const keep = usable.some((w) => w.name === f.workflow);
          const workflow = keep
            ? f.workflow
            : (usable.find((w) => w.name === project?.default_workflow)?.name ??
              usable[0]?.name ??
              '');
          return {
            ...f,
            workflow,
            fields: keep
              ? f.fields
              : defaults(usable.find((w) => w.name === workflow)?.fields ?? []),
          };
        });
      })
      .catch(() => {});
    return () => {
      stopped = true;
    };
  }, [api, form.project_id, live.projects]);

  const decls = workflows.find((w) => w.name === form.workflow)?.fields ?? [];

  // What would run, read again as the choices change.
  useEffect(() => {
    if (form.project_id === null || !form.workflow) return;
    const timer = setTimeout(() => {
      void api
        .post<ResolveResult>(
          '/v1/resolve',
          createBody({ ...form, title: form.title || 'untitled' }, decls),
        )
        .then(setResolved)
        .catch(() => setResolved(null));
    }, 250);
    return () => clearTimeout(timer);
  }, [api, form, decls]);

  const inputs = [
    'project_id',
    'workflow',
    'title',
    'description',
    'agent',
    'model',
    'effort',
    ...decls.map((d) => `fields.${d.name}`),
  ];
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      const t = await api.post<TaskRow>('/v1/tasks', createBody(form, decls));
      live.put(t);
      go(`#/tasks/${t.id}`);
    } catch (err) {
      if (err instanceof ApiError)
        setErrors({ [errorTarget(err.details.field, inputs)]: err.message });
      else setErrors({ '': (err as Error).message });
    } finally {
      setBusy(false);
    }
  };
  const set = (patch: Partial<TaskForm>) => setForm({ ...form, ...patch });
  const err = (k: string) =>
    errors[k] ? (
      <span class="field-error" data-error-for={k}>
        {errors[k]}
      </span>
    ) : null;

  return (
    <form class="new-task" onSubmit={submit} data-testid="new-task-form" noValidate>
      <h1>New task</h1>
      {err('')}
      <div class="row two">
        <label>
          Project
          <select
            value={form.project_id ?? ''}
            name="project_id"
            onChange={(e) =>
              set({
                project_id: Number((e.currentTarget as HTMLSelectElement).value),
                workflow: '',
              })
            }
          >
            {live.projects.map((p) => (
              <option value={p.id} key={p.id}>
                {p.name}
              </option>
            ))}
          </select>
          {err('project_id')}
        </label>
        <label>
          Workflow
          <select
            value={form.workflow}
            name="workflow"
            onChange={(e) => {
              const workflow = (e.currentTarget as HTMLSelectElement).value;
              set({
                workflow,
                fields: defaults(workflows.find((w) => w.name === workflow)?.fields ?? []),
              });
            }}
          >
            {workflows.map((w) => (
              <option value={w.name} key={w.name}>
                {w.name}
                {w.description ? ` — ${w.description}` : ''}
              </option>
            ))}
          </select>
          {err('workflow')}
        </label>
      </div>
      <label>
        Title
        <input
          name="title"
          value={form.title}
          onInput={(e) => set({ title: (e.currentTarget as HTMLInputElement).value })}
          placeholder="What should be done"
        />
        {err('title')}
      </label>
      <label>
        Description <span class="muted">(optional)</span>
        <textarea
          name="description"
          rows={4}
          value={form.description}
          onInput={(e) => set({ description: (e.currentTarget as HTMLTextAreaElement).value })}
        />
        {err('description')}
      </label>
      {decls.length > 0 && (
        <fieldset class="fields">
          <legend>Fields of {form.workflow}</legend>
          {decls.map((d) => (
            <FieldInput
              key={d.name}
              decl={d}
              value={form.fields[d.name] ?? ''}
              onChange={(v) => set({ fields: { ...form.fields, [d.name]: v } })}
              error={err(`fields.${d.name}`)}
            />
          ))}
        </fieldset>
      )}
      <div class="row three">
        {(['agent', 'model', 'effort'] as const).map((k) => (
          <label key={k}>
            {k[0]?.toUpperCase()}
            {k.slice(1)} <span class="muted">(override)</span>
            <input
              name={k}
              value={form[k]}
              onInput={(e) => set({ [k]: (e.currentTarget as HTMLInputElement).value })}
              placeholder="as the workflow says"
            />
            {err(k)}
          </label>
        ))}
      </div>
      {resolved?.steps.some((s) => s.agent) && (
        <div class="resolved" data-testid="resolved">
          <h3>Will run with</h3>
          <ul>
            {resolved.steps
              .filter((s) => s.agent)
              .map((s) => (
                <li key={s.index}>
                  <span class="step-name">{s.id ?? `step ${s.index + 1}`}</span> {s.agent?.value}
                  {s.model?.value ? ` · ${s.model.value}` : ''}
                  {s.effort?.value ? ` · ${s.effort.value}` : ''}{' '}
                  <span class="muted">(from {s.agent?.source})</span>
                </li>
              ))}
          </ul>
          {resolved.branch && !resolved.branch.placeholder && (
            <p class="muted">
              Branch <code>{resolved.branch.value}</code>
            </p>
          )}
        </div>
      )}
      <div class="row">
        <label class="check">
          <input
            type="checkbox"
            checked={form.paused}
            onChange={(e) => set({ paused: (e.currentTarget as HTMLInputElement).checked })}
          />{' '}
          Create paused
        </label>
        <span class="grow" />
        <a class="button" href="#/">
          Cancel
        </a>
        <button type="submit" class="primary" disabled={busy} data-action="create">
          Create task
        </button>
      </div>
    </form>
  );
}

function defaults(decls: readonly FieldDecl[]): Record<string, string> {
  return Object.fromEntries(decls.map((d) => [d.name, defaultValue(d)]));
}

function FieldInput({
  decl: d,
  value,
  onChange,
  error,
}: {
  decl: FieldDecl;
  value: string;
  onChange(v: string): void;
  error: unknown;
}) {
  const kind = inputKind(d);
  const label = (
    <>
      {d.label ?? d.name}
      {d.required ? <span class="req"> *</span> : <span class="muted"> (optional)</span>}
    </>
  );
  const name = `fields.${d.name}`;
  let input = (
    <input
      name={name}
      value={value}
      inputMode={kind === 'integer' || kind === 'number' ? 'decimal' : undefined}
      onInput={(e) => onChange((e.currentTarget as HTMLInputElement).value)}
    />
  );
  if (kind === 'boolean')
    input = (
      <select
        name={name}
        value={value}
        onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}
      >
        {!d.required && <option value="">—</option>}
        <option value="true">yes</option>
        <option value="false">no</option>
      </select>
    );
  if (kind === 'select')
    input = (
      <select
        name={name}
        value={value}
        onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}
      >
        {(!d.required || value === '') && <option value="">—</option>}
        {(d.values ?? []).map((v) => (
          <option value={String(v)} key={String(v)}>
            {String(v)}
          </option>
        ))}
      </select>
    );
  if (kind === 'multi') {
    const picked = new Set(value.split(',').filter(Boolean));
    input = (
      <div class="options">
        {(d.values ?? []).map((v) => {
          const s = String(v);
          return (
            <label class="check" key={s}>
              <input
                type="checkbox"
                name={name}
                checked={picked.has(s)}
                onChange={() => {
                  if (picked.has(s)) picked.delete(s);
                  else picked.add(s);
                  onChange(
                    (d.values ?? [])
                      .map(String)
                      .filter((x) => picked.has(x))
                      .join(','),
                  );
                }}
              />{' '}
              {s}
            </label>
          );
        })}
      </div>
    );
  }
  const hint = d.description && <span class="hint">{d.description}</span>;
  // A set of checkboxes is a group, not one labelled control.
  if (kind === 'multi')
    return (
      <div class="field label">
        {label}
        {input}
        {hint}
        {error as ComponentChildren}
      </div>
    );
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is `input`, picked above by the field's type
    <label class="field">
      {label}
      {input}
      {hint}
      {error as ComponentChildren}
    </label>
  );
}
