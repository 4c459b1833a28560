/**
 * The step tester (STYLE "The tester is stricter than production"): one contract suite every step
 * type runs, built-in or from a user's plugin. Cases are data: a step as authored, where it
 * stands, and for invalid cases the exact findings expected, by path (relative to the step; `$.`
 * for a path from the file root) and code — never by message. It validates through the real
 * workflow validator with the built-in step types plus the one under test, deep-freezes every
 * input, rejects duplicate cases and invalid cases that expect nothing, and checks the type's meta.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type AgentValueSets,
  COMMON_STEP_KEYS,
  loadPlugins,
  Registry,
  STEP_CONTEXTS,
  type StepContextName,
  type StepType,
} from '../../kernel/plugin/index.js';
import {
  type StepTypeSource,
  validateWorkflowValue,
  type WorkflowDefaults,
  type WorkflowLimits,
} from '../../kernel/workflows/index.js';

export const DEFAULT_LIMITS: WorkflowLimits = {
  loop_max_iterations: 10,
  parallel_max_parallel: 4,
  fan_out_max_tasks: 64,
  fan_out_max_depth: 3,
  include_max_depth: 5,
};

export const TEST_AGENTS: AgentValueSets = {
  agents: ['claude', 'codex', 'cursor'],
  models: { claude: ['opus', 'sonnet'], codex: ['gpt-5'], cursor: [] },
  efforts: { claude: ['low', 'high'], codex: ['low', 'high'], cursor: [] },
};

export interface StepCase {
  /** The step as authored (its `type` may be left out in the `merge` context). */
  def: Record<string, unknown>;
  /** Where the step stands; default `body`. */
  context?: StepContextName;
  defaults?: WorkflowDefaults;
  limits?: Partial<WorkflowLimits>;
  containerImage?: string;
  /** Expected warnings (path and code); a valid case must otherwise have none. */
  warnings?: ExpectedFinding[];
}

export interface ExpectedFinding {
  path: string;
  code: string;
}

export interface InvalidStepCase extends StepCase {
  errors: ExpectedFinding[];
}

export interface StepTesterCases {
  valid: StepCase[];
  invalid: InvalidStepCase[];
}

const BUILTIN_STEPS = fileURLToPath(new URL('../../plugins/steps/', import.meta.url));

let builtins: Promise<Registry> | null = null;

/** The built-in step types, loaded once per test file through real discovery. */
export function builtinStepTypes(): Promise<Registry> {
  builtins ??= (async () => {
    const registry = new Registry();
    await loadPlugins({
      registry,
      extra: [],
      configDir: BUILTIN_STEPS,
      builtinRoot: BUILTIN_STEPS,
    });
    return registry;
  })();
  return builtins;
}

/** Built-ins with `extra` added (or replacing the built-in of the same id). */
export function withStepType(base: StepTypeSource, extra: StepType): StepTypeSource {
  return {
    stepType: (id) => (id === extra.meta.type ? extra : base.stepType(id)),
    listStepTypes: () => [
      ...base.listStepTypes().filter((t) => t.meta.type !== extra.meta.type),
      extra,
    ],
  };
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** The workflow a case is judged in, and the path prefix of its step. */
function embed(c: StepCase): { workflow: Record<string, unknown>; prefix: string } {
  const base = { name: 'step-tester', ...(c.defaults ? { defaults: c.defaults } : {}) };
  switch (c.context ?? 'body') {
    case 'parallel':
      return {
        workflow: { ...base, steps: [{ type: 'parallel', steps: [c.def] }] },
        prefix: 'steps[0].steps[0]',
      };
    case 'loop':
      return {
        workflow: { ...base, steps: [{ type: 'loop', count: 1, steps: [c.def] }] },
        prefix: 'steps[0].steps[0]',
      };
    case 'merge':
      return {
        workflow: {
          ...base,
          steps: [
            {
              type: 'fan_out',
              lanes: [{ id: 'lane', workflow: 'elsewhere' }],
              merge: { on_conflict: 'agent', agent: c.def },
            },
          ],
        },
        prefix: 'steps[0].merge.agent',
      };
    default:
      return { workflow: { ...base, steps: [c.def] }, prefix: 'steps[0]' };
  }
}

function absolute(prefix: string, path: string): string {
  if (path.startsWith('$.')) return path.slice(2);
  if (path === '') return prefix;
  return path.startsWith('[') ? `${prefix}${path}` : `${prefix}.${path}`;
}

function judge(types: StepTypeSource, c: StepCase) {
  const { workflow, prefix } = embed(c);
  deepFreeze(workflow);
  const result = validateWorkflowValue(workflow, {
    types,
    limits: { ...DEFAULT_LIMITS, ...c.limits },
    containerImage: c.containerImage ?? '',
    agents: TEST_AGENTS,
  });
  const pick = (list: { path: string; code?: string }[]) =>
    list.map((f) => ({ path: f.path, code: f.code ?? '' })).sort(byPathCode);
  return {
    errors: pick(result.errors),
    warnings: pick(result.warnings),
    expect: (list: ExpectedFinding[] = []) =>
      list.map((f) => ({ path: absolute(prefix, f.path), code: f.code })).sort(byPathCode),
    raw: result,
  };
}

function byPathCode(a: ExpectedFinding, b: ExpectedFinding): number {
  return a.path.localeCompare(b.path) || a.code.localeCompare(b.code);
}

function caseKey(c: StepCase): string {
  return JSON.stringify([c.def, c.context ?? 'body', c.defaults, c.limits, c.containerImage]);
}

function title(c: StepCase): string {
  const where = c.context && c.context !== 'body' ? ` in ${c.context}` : '';
  const text = JSON.stringify(c.def);
  return `${text.length > 90 ? `${text.slice(0, 87)}...` : text}${where}`;
}

/** Registers the contract suite of `stepType` with its cases. */
export function describeStepType(stepType: StepType, cases: StepTesterCases): void {
  const seen = new Set<string>();
  for (const c of [...cases.valid, ...cases.invalid]) {
    const key = caseKey(c);
    if (seen.has(key)) throw new Error(`step tester: duplicate case ${title(c)}`);
    seen.add(key);
  }
  for (const c of cases.invalid) {
    if (c.errors.length === 0)
      throw new Error(`step tester: invalid case ${title(c)} expects no error`);
  }
  if (cases.valid.length === 0) throw new Error('step tester: give at least one valid case');

  const type = stepType.meta.type;
  describe(`step type ${type}`, () => {
    const types = async () => withStepType(await builtinStepTypes(), stepType);

    describe('meta', () => {
      it('declares its id, docs, contexts, rows and template keys', () => {
        const { meta } = stepType;
        expect(meta.type).toMatch(/^[a-z][a-z0-9_]*$/);
        expect(meta.docs.summary.length).toBeGreaterThan(10);
        expect(meta.docs.url).toMatch(/#/);
        expect(meta.contexts.length).toBeGreaterThan(0);
        for (const c of meta.contexts) expect(STEP_CONTEXTS).toContain(c);
        for (const k of meta.common) expect(COMMON_STEP_KEYS).toContain(k);
        const rowKeys = meta.rows.map((r) => r.key);
        expect(new Set(rowKeys).size).toBe(rowKeys.length);
        // Each template path starts at a key the type accepts.
        const accepted = new Set<string>([...rowKeys, ...meta.common, 'id', 'name', 'type']);
        for (const t of meta.templates) {
          const head = t.split('.')[0]?.replace(/\[\]$/, '') ?? '';
          expect(accepted, `template path ${t}`).toContain(head);
        }
        expect(new Set(meta.reasons).size).toBe(meta.reasons.length);
      });

      it('is strict: an unknown key is refused by name', async () => {
        const first = cases.valid[0] as StepCase;
        const c = { ...first, def: { ...first.def, zz_unknown: 1 } };
        const r = judge(await types(), c);
        expect(r.errors).toContainEqual(r.expect([{ path: 'zz_unknown', code: 'unknown_key' }])[0]);
      });

      it('accepts exactly the keys its rows and common keys name', async () => {
        const shape = (stepType.meta.schema as unknown as { shape?: Record<string, unknown> })
          .shape;
        if (!shape) return;
        const declared = new Set([
          ...stepType.meta.rows.map((r) => r.key),
          ...stepType.meta.common,
          'id',
          'name',
          'type',
        ]);
        expect(new Set(Object.keys(shape))).toEqual(declared);
      });
    });

    describe('valid', () => {
      for (const c of cases.valid) {
        it(title(c), async () => {
          const r = judge(await types(), c);
          expect(r.errors).toEqual([]);
          expect(r.warnings).toEqual(r.expect(c.warnings));
        });
      }
    });

    describe('invalid', () => {
      for (const c of cases.invalid) {
        it(title(c), async () => {
          const r = judge(await types(), c);
          expect(r.errors).toEqual(r.expect(c.errors));
          for (const f of r.raw.errors) expect(f.message.length).toBeGreaterThan(0);
          if (c.warnings) expect(r.warnings).toEqual(r.expect(c.warnings));
        });
      }
    });
  });
}
