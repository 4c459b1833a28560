/**
 * The workflow validator (SPEC §2.8): one pass over a file that reports every problem at once, each
 * a finding `{path, line?, message, code}` sorted by line. The top level, `defaults` and `fields[]`
 * are the kernel's; each step is checked by its step type from the plugin registry — schema,
 * nesting context, `validate`, template syntax — and walked into through the type's `children`,
 * so a plugin's step type is validated like a built-in (decision 020). Step ids are unique across
 * the whole file, sub-steps, lane steps and merge resolvers included (decision 023).
 */
import type { z } from 'zod';
import { type Finding, readIssues } from '../input/index.js';
import type {
  AgentValueSets,
  DefaultsKey,
  PathSegment,
  ResolvedValue,
  StepContextName,
  StepFinding,
  StepType,
  StepValidationContext,
} from '../plugin/index.js';
import { agentValueFindings, metaOf, SLUG_PATTERN } from '../plugin/index.js';
import { checkFieldDecl, type FieldDecl, FieldDeclSchema } from './fields.js';
import {
  DefaultsSchema,
  formatWorkflowPath,
  TopLevelSchema,
  type WorkflowDef,
  type WorkflowDefaults,
} from './format.js';
import { type LineIndex, MAX_WORKFLOW_BYTES, parseWorkflowSource } from './source.js';
import { checkWorkflowTemplate, collectTemplates, type TemplateChecker } from './templates.js';
import { childrenOf, isRecord, type StepTypeLookup } from './tree.js';

export interface StepTypeSource extends StepTypeLookup {
  listStepTypes(): StepType[];
}

/** Configuration ceilings a file is judged against (SPEC §2.10). */
export type WorkflowLimits = StepValidationContext['limits'];

export interface ValidateOptions {
  types: StepTypeSource;
  limits: WorkflowLimits;
  /** The daemon's `container.image`; a workflow's `defaults.container.image` overrides it. */
  containerImage: string;
  /** Agent value sets, or null to judge no agent names (offline validation). */
  agents: AgentValueSets | null;
  /** Defaults to the Go text/template parser. */
  checkTemplate?: TemplateChecker;
}

export interface WorkflowValidation {
  /** The file's `name:` when it is a string, valid or not: what an invalid file is listed under. */
  declaredName: string | null;
  /** The authored document when there are no errors, else null. */
  definition: WorkflowDef | null;
  /** The declarations that are valid, normalized. */
  fields: FieldDecl[];
  errors: Finding[];
  warnings: Finding[];
}

/** Marks of a snapshot that are not authored keys (decision 025). */
export const SNAPSHOT_KEYS = ['resolved_from', 'include_defaults'] as const;

const CONTEXT_PROSE: Record<StepContextName, string> = {
  body: 'at the top level of a workflow or lane',
  parallel: 'inside a parallel group',
  loop: 'in a loop body',
  merge: 'as a merge resolver',
};

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

class Findings {
  readonly errors: Finding[] = [];
  readonly warnings: Finding[] = [];
  constructor(private readonly lines: LineIndex | null) {}

  add(
    path: readonly PathSegment[],
    code: string,
    message: string,
    severity: 'error' | 'warning' = 'error',
    line?: number,
  ): void {
    const where = formatWorkflowPath(path);
    const finding: Finding = { path: where, message, code };
    const at = line ?? this.lines?.lineOf(path);
    if (at !== undefined) finding.line = at;
    (severity === 'error' ? this.errors : this.warnings).push(finding);
  }

  sorted(list: Finding[]): Finding[] {
    return list
      .map((f, i) => ({ f, i }))
      .sort(
        (a, b) =>
          (a.f.line ?? Number.MAX_SAFE_INTEGER) - (b.f.line ?? Number.MAX_SAFE_INTEGER) ||
          a.i - b.i,
      )
      .map(({ f }) => f);
  }
}

/**
 * Findings for a zod error on `value` (at `base` in the file). An unknown key that another step
 * type accepts says so; a missing key says it is required.
 */
function addZodIssues(
  out: Findings,
  issues: readonly z.core.$ZodIssue[],
  value: unknown,
  base: readonly PathSegment[],
  keyOwners: ReadonlyMap<string, readonly string[]> | null,
  stepType: string | null,
): void {
  const findings = readIssues(issues, {
    base,
    value,
    format: (path) => formatWorkflowPath(path as PathSegment[]),
    unknownKey: (path, key) => {
      const owners = keyOwners?.get(key)?.filter((t) => t !== stepType) ?? [];
      if (!stepType || owners.length === 0) return null;
      return {
        path: [...path, key],
        code: 'key_not_valid_for_type',
        message: `${key} is not valid on ${article(stepType)} ${stepType} step (it belongs to ${owners.join(', ')})`,
      };
    },
  });
  for (const f of findings) out.add(f.path as PathSegment[], f.code, f.message);
}

/** Which step types accept each key, from the rows they declare (read as data). */
function keyOwnersOf(types: StepTypeSource): Map<string, string[]> {
  const owners = new Map<string, string[]>();
  for (const t of types.listStepTypes()) {
    const keys = new Set<string>([
      ...t.meta.rows.map((r) => r.key),
      ...t.meta.common,
      'id',
      'name',
      'type',
    ]);
    for (const key of keys) owners.set(key, [...(owners.get(key) ?? []), t.meta.type]);
  }
  return owners;
}

interface WalkOptions {
  /** Steps of a snapshot may carry `resolved_from` and `include_defaults` (decision 025). */
  snapshot: boolean;
}

/**
 * Walks step lists: each step against its type, nesting context, ids, templates, children.
 * Shared by file validation and the post-splice check of a snapshot.
 */
export class StepWalker {
  private readonly ids = new Map<string, string>();
  private readonly keyOwners: Map<string, string[]>;
  private readonly checkTemplate: TemplateChecker;
  readonly ctx: StepValidationContext;

  constructor(
    private readonly out: Findings,
    private readonly opts: ValidateOptions,
    defaults: WorkflowDefaults,
    private readonly lines: LineIndex | null,
    private readonly walk: WalkOptions,
  ) {
    this.keyOwners = keyOwnersOf(opts.types);
    this.checkTemplate = opts.checkTemplate ?? checkWorkflowTemplate;
    const image = defaults.container?.image ?? opts.containerImage;
    this.ctx = {
      limits: opts.limits,
      containerImage: image,
      agents: opts.agents,
      resolve: (step: unknown, key: DefaultsKey): ResolvedValue | undefined => {
        if (isRecord(step) && step[key] !== undefined) return { value: step[key], from: 'step' };
        const carried = isRecord(step) ? step.include_defaults : undefined;
        if (isRecord(carried) && carried[key] !== undefined)
          return { value: carried[key], from: 'include' };
        const value = (defaults as Record<string, unknown>)[key];
        return value !== undefined ? { value, from: 'defaults' } : undefined;
      },
      typeOf: (step: unknown) => metaOf(opts.types, step),
    };
  }

  list(steps: readonly unknown[], path: readonly PathSegment[], context: StepContextName): void {
    steps.forEach((step, i) => {
      this.step(step, [...path, i], context, null);
    });
  }

  step(
    raw: unknown,
    path: readonly PathSegment[],
    context: StepContextName,
    implied: { type: string; requiresId: boolean } | null,
  ): void {
    const out = this.out;
    if (!isRecord(raw)) {
      out.add(path, 'invalid_type', `${formatWorkflowPath(path)} must be a mapping (a step)`);
      return;
    }
    let typeName = raw.type;
    if (typeName === undefined && implied) typeName = implied.type;
    if (typeName === undefined) {
      out.add(
        [...path, 'type'],
        'required',
        `${formatWorkflowPath(path)}: type is required`,
        'error',
        this.lines?.lineOf(path),
      );
      return;
    }
    const known = this.opts.types.listStepTypes().map((t) => t.meta.type);
    const type = typeof typeName === 'string' ? this.opts.types.stepType(typeName) : undefined;
    if (!type) {
      out.add(
        [...path, 'type'],
        'unknown_step_type',
        `unknown step type ${JSON.stringify(typeName)} (known: ${known.join(', ')})`,
      );
      return;
    }
    const name = type.meta.type;
    if (!type.meta.contexts.includes(context)) {
      const allowed = type.meta.contexts.map((c) => CONTEXT_PROSE[c]).join(', or ');
      out.add(
        [...path, 'type'],
        'not_allowed_here',
        `${article(name)} ${name} step cannot stand ${CONTEXT_PROSE[context]} (only ${allowed})`,
        'error',
        this.lines?.lineOf(raw.type === undefined ? path : [...path, 'type']),
      );
    }

    const authored: Record<string, unknown> = { ...raw };
    if (raw.type === undefined) authored.type = name;
    if (this.walk.snapshot) for (const k of SNAPSHOT_KEYS) delete authored[k];
    const parsed = type.meta.schema.safeParse(authored);
    if (!parsed.success)
      addZodIssues(out, parsed.error.issues, authored, path, this.keyOwners, name);

    if (implied?.requiresId && raw.id === undefined) {
      out.add(
        [...path, 'id'],
        'required',
        `${formatWorkflowPath(path)} needs an id`,
        'error',
        this.lines?.lineOf(path),
      );
    }
    if (typeof raw.id === 'string' && SLUG_PATTERN.test(raw.id)) {
      const first = this.ids.get(raw.id);
      const here = formatWorkflowPath(path);
      if (first !== undefined)
        out.add([...path, 'id'], 'duplicate_id', `step id "${raw.id}" is already used by ${first}`);
      else this.ids.set(raw.id, here);
    }

    if (parsed.success && type.validate) {
      let findings: readonly StepFinding[] = [];
      try {
        findings = type.validate(parsed.data, this.ctx);
      } catch (err) {
        findings = [
          {
            path: [],
            code: 'step_type_failed',
            message: `the ${name} step type failed to check this step: ${(err as Error).message}`,
          },
        ];
      }
      for (const f of findings) {
        const full = f.fromRoot ? f.path : [...path, ...f.path];
        out.add(full, f.code, f.message, f.severity ?? 'error');
      }
    }

    for (const { path: rel, source } of collectTemplates(raw, type.meta.templates)) {
      const problem = this.checkTemplate(source);
      if (!problem) continue;
      const full = [...path, ...rel];
      out.add(
        full,
        'template_syntax',
        `${formatWorkflowPath(full)}: template error at line ${problem.line}, column ${problem.col}: ${problem.message}`,
        'error',
        this.lines?.lineInScalar(full, problem.line),
      );
    }

    for (const kid of childrenOf(raw, this.opts.types)) {
      const at = [...path, ...kid.path];
      if (kid.kind === 'list') this.list(kid.steps, at, kid.context);
      else
        this.step(kid.step, at, kid.context, {
          type: kid.impliedType,
          requiresId: kid.requiresId === true,
        });
    }
  }
}

function checkFields(out: Findings, fields: readonly unknown[]): FieldDecl[] {
  const decls: FieldDecl[] = [];
  const names = new Map<string, number>();
  fields.forEach((raw, i) => {
    const base: PathSegment[] = ['fields', i];
    const parsed = FieldDeclSchema.safeParse(raw);
    if (!parsed.success) {
      if (!isRecord(raw)) {
        out.add(
          base,
          'invalid_type',
          `${formatWorkflowPath(base)} must be a mapping (a field declaration)`,
        );
        return;
      }
      addZodIssues(out, parsed.error.issues, raw, base, null, null);
      return;
    }
    const first = names.get(parsed.data.name);
    if (first !== undefined) {
      out.add(
        [...base, 'name'],
        'duplicate_field',
        `field name "${parsed.data.name}" is already declared by fields[${first}]`,
      );
      return;
    }
    names.set(parsed.data.name, i);
    const { decl, problems } = checkFieldDecl(parsed.data);
    for (const p of problems) {
      const path = [...base, ...p.path];
      out.add(path, p.code, `${formatWorkflowPath(path)}: ${p.message}`);
    }
    if (problems.length === 0) decls.push(decl);
  });
  return decls;
}

function checkDefaults(out: Findings, raw: unknown, opts: ValidateOptions): WorkflowDefaults {
  if (raw === undefined) return {};
  let defaults: WorkflowDefaults;
  const parsed = DefaultsSchema.safeParse(raw);
  if (parsed.success) defaults = parsed.data;
  else {
    if (!isRecord(raw)) {
      out.add(['defaults'], 'invalid_type', 'defaults must be a mapping');
      return {};
    }
    addZodIssues(out, parsed.error.issues, raw, ['defaults'], null, null);
    // Keep what is valid so the catalogue and the steps are still judged against the rest.
    const keep: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw)) {
      if (DefaultsSchema.safeParse({ [k]: v }).success) keep[k] = v;
    }
    defaults = keep as WorkflowDefaults;
  }
  for (const f of agentValueFindings(defaults, defaults.agent, opts.agents)) {
    out.add(['defaults', ...f.path], f.code, `defaults.${f.message}`, f.severity ?? 'error');
  }
  return defaults;
}

/** Validates a parsed document (a YAML or JSON value). */
export function validateWorkflowValue(
  value: unknown,
  opts: ValidateOptions,
  lines: LineIndex | null = null,
): WorkflowValidation {
  const out = new Findings(lines);
  const declaredName = isRecord(value) && typeof value.name === 'string' ? value.name : null;
  const finish = (fields: FieldDecl[]): WorkflowValidation => {
    const errors = out.sorted(out.errors);
    return {
      declaredName,
      definition: errors.length === 0 ? (value as WorkflowDef) : null,
      fields,
      errors,
      warnings: out.sorted(out.warnings),
    };
  };
  if (!isRecord(value)) {
    out.add([], 'invalid_type', 'a workflow file must be a mapping with name and steps');
    return finish([]);
  }
  const top = TopLevelSchema.safeParse(value);
  if (!top.success) addZodIssues(out, top.error.issues, value, [], null, null);

  const fields = Array.isArray(value.fields) ? checkFields(out, value.fields) : [];
  const defaults = checkDefaults(out, value.defaults, opts);
  if (Array.isArray(value.steps)) {
    new StepWalker(out, opts, defaults, lines, { snapshot: false }).list(
      value.steps,
      ['steps'],
      'body',
    );
  }
  return finish(fields);
}

/** Validates a file's text: size, YAML, then the value. */
export function validateWorkflowText(text: string, opts: ValidateOptions): WorkflowValidation {
  if (Buffer.byteLength(text, 'utf8') > MAX_WORKFLOW_BYTES) {
    return {
      declaredName: null,
      definition: null,
      fields: [],
      errors: [
        {
          path: '',
          code: 'too_large',
          message: `the workflow is over 1 MiB (${MAX_WORKFLOW_BYTES} bytes)`,
        },
      ],
      warnings: [],
    };
  }
  const parsed = parseWorkflowSource(text);
  if (!parsed.ok) {
    const finding: Finding = { path: '', code: 'yaml_syntax', message: parsed.message };
    if (parsed.line !== undefined) finding.line = parsed.line;
    return { declaredName: null, definition: null, fields: [], errors: [finding], warnings: [] };
  }
  return validateWorkflowValue(parsed.value, opts, parsed.lines);
}

/**
 * Checks a spliced snapshot's steps again (nesting, ids, resolved values) with the root's
 * defaults: an include can bring a step where it may not stand. No lines: the steps come from
 * several files.
 */
export function validateSnapshotSteps(
  steps: readonly unknown[],
  defaults: WorkflowDefaults,
  opts: ValidateOptions,
): Finding[] {
  const out = new Findings(null);
  new StepWalker(out, opts, defaults, null, { snapshot: true }).list(steps, ['steps'], 'body');
  return out.errors;
}
