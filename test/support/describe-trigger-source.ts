/**
 * The contract suite every trigger source runs, built in or a user's plugin (STYLE: one suite per
 * plugin kind, stricter than production). It checks what the runtime relies on, with the
 * source's own cases as data:
 *
 *   describeTriggerSource(commandSource, { plugin, valid: [...], invalid: [...], polls: [...] });
 *
 * - the plugin registers exactly this source, named `svc:triggers/<type>` for built-ins;
 * - the schema is strict (an unknown key is refused at its path) and pins `type`;
 * - every `meta.rows` name is a key of the schema, and the kind's member exists;
 * - definitions reach the source deep-frozen, and failures come back as values, never throws;
 * - a poll returns at most `maxEvents` events, each with a non-empty string id;
 * - a push refuses an unsigned request; a schedule's next occurrence is after its anchor.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { FakeClock } from '../../kernel/clock/index.js';
import type {
  AcceptResult,
  ForgeConnection,
  ForgeRepo,
  IngressRequest,
  PluginApi,
  PollResult,
  SvcPlugin,
  TriggerPollContext,
  TriggerSource,
} from '../../kernel/plugin/index.js';

type Def = Record<string, unknown>;
type RunResult = Awaited<ReturnType<TriggerPollContext['run']>>;

export interface FakePollOptions {
  run?: (argv: readonly string[], env: Record<string, string>) => Partial<RunResult>;
  forge?: { repo: ForgeRepo; conn: ForgeConnection } | { reason: string; message: string };
  maxEvents?: number;
}

/** A poll context that records what the source asked for and answers from the test's script. */
export function fakePollContext(opts: FakePollOptions = {}) {
  const calls: Array<{ argv: readonly string[]; env: Record<string, string> }> = [];
  const ctx: TriggerPollContext = {
    triggerId: 'contract',
    project: { id: 1, name: 'p', path: '/nonexistent', default_branch: 'main' },
    maxEvents: opts.maxEvents ?? 20,
    signal: new AbortController().signal,
    run: async (argv, o) => {
      calls.push({ argv, env: o.env ?? {} });
      return {
        code: 0,
        stdout: '',
        stderr: '',
        timedOut: false,
        spawnError: null,
        overflow: false,
        ...(opts.run?.(argv, o.env ?? {}) ?? {}),
      };
    },
    forge: async () => {
      const f = opts.forge;
      if (!f) return { ok: false, reason: 'forge_not_detected', message: 'no forge in this test' };
      return 'conn' in f ? { ok: true, ...f } : { ok: false, ...f };
    },
  };
  return { ctx, calls };
}

export interface PollCase {
  name: string;
  def: Def;
  cursor: string | null;
  ctx?: FakePollOptions;
  expect(result: PollResult, calls: ReturnType<typeof fakePollContext>['calls']): void;
}

export interface AcceptCase {
  name: string;
  def: Def;
  request: Partial<IngressRequest>;
  expect(result: AcceptResult): void;
}

export interface TriggerSourceCases {
  plugin: SvcPlugin;
  /** Source blocks (with `type`) the schema must accept. */
  valid: Def[];
  /** Blocks it must refuse, with the dotted path of an issue it must report. */
  invalid: Array<{ def: Def; path: string }>;
  polls?: PollCase[];
  accepts?: AcceptCase[];
  schedules?: Array<{ def: Def; after: string; next: string | null }>;
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

function issuePaths(error: z.ZodError): string[] {
  return error.issues.flatMap((i) => {
    const base = i.path.map(String).join('.');
    if (i.code === 'unrecognized_keys') return i.keys.map((k) => (base ? `${base}.${k}` : k));
    return [base];
  });
}

function parse(source: TriggerSource, def: Def): unknown {
  const r = source.schema.safeParse(def);
  if (!r.success) throw new Error(`case does not parse: ${JSON.stringify(issuePaths(r.error))}`);
  return deepFreeze(r.data);
}

export function describeTriggerSource(source: TriggerSource, cases: TriggerSourceCases): void {
  describe(`trigger source ${source.type} (contract)`, () => {
    it('is registered by its plugin under its own type', async () => {
      const registered: TriggerSource[] = [];
      const api: PluginApi = {
        registerAgent: () => {
          throw new Error('a trigger source plugin registers no agent');
        },
        registerStepType: () => {
          throw new Error('a trigger source plugin registers no step type');
        },
        registerForge: () => {
          throw new Error('a trigger source plugin registers no forge');
        },
        registerTriggerSource: (s) => registered.push(s),
      };
      await cases.plugin.setup(api);
      expect(registered).toEqual([source]);
      expect(source.type).toMatch(/^[a-z][a-z0-9_]*$/);
      if (cases.plugin.name.startsWith('svc:'))
        expect(cases.plugin.name).toBe(`svc:triggers/${source.type}`);
    });

    it('declares a kind whose member exists, help, and rows that name schema keys', () => {
      const member = { poll: 'poll', push: 'accept', schedule: 'schedule' }[source.meta.kind];
      expect(typeof (source as unknown as Record<string, unknown>)[member]).toBe('function');
      if (source.meta.kind === 'poll') expect(typeof source.interval).toBe('function');
      expect(source.meta.help.length).toBeGreaterThan(0);
      const names = source.meta.rows.map((r) => r.name);
      expect(new Set(names).size).toBe(names.length);
      expect(names).not.toContain('type');
      const shape = source.schema as unknown as {
        shape?: Record<string, unknown>;
        def?: { schema?: { shape?: Record<string, unknown> } };
      };
      const keys = Object.keys(shape.shape ?? shape.def?.schema?.shape ?? {});
      if (keys.length > 0) for (const n of names) expect(keys, `row ${n}`).toContain(n);
    });

    it('accepts the valid cases and pins type', () => {
      expect(cases.valid.length).toBeGreaterThan(0);
      for (const def of cases.valid) {
        expect(def.type).toBe(source.type);
        expect(() => parse(source, def)).not.toThrow();
        const other = source.schema.safeParse({ ...def, type: `${source.type}_not` });
        expect(other.success).toBe(false);
      }
    });

    it('is strict: an unknown key is refused at its path', () => {
      const r = source.schema.safeParse({ ...cases.valid[0], contract_bogus: 1 });
      expect(r.success).toBe(false);
      if (!r.success) expect(issuePaths(r.error)).toContain('contract_bogus');
    });

    it.each(cases.invalid.map((c) => [JSON.stringify(c.def), c] as const))(
      'refuses %s',
      (_name, c) => {
        const r = source.schema.safeParse(c.def);
        expect(r.success).toBe(false);
        if (!r.success) expect(issuePaths(r.error)).toContain(c.path);
      },
    );

    if (source.meta.kind === 'poll') {
      it('answers a failing world with a value, never a throw', async () => {
        const def = parse(source, cases.valid[0] as Def);
        const { ctx } = fakePollContext({
          run: () => ({ code: null, spawnError: 'ENOENT: no such program' }),
          forge: { reason: 'forge_unauthenticated', message: 'no credential' },
        });
        const r = await source.poll?.(ctx, def, null);
        expect(r?.ok).toBe(false);
        if (r && !r.ok) expect(r.error.length).toBeGreaterThan(0);
        expect(source.interval?.(def)).toBeGreaterThan(0);
      });
      for (const c of cases.polls ?? []) {
        it(`poll: ${c.name}`, async () => {
          const { ctx, calls } = fakePollContext(c.ctx);
          const r = (await source.poll?.(ctx, parse(source, c.def), c.cursor)) as PollResult;
          if (r.ok) {
            expect(r.events.length).toBeLessThanOrEqual(ctx.maxEvents);
            for (const e of r.events) expect(typeof e.id === 'string' && e.id !== '').toBe(true);
            expect(r.truncated).toBeGreaterThanOrEqual(0);
            expect(r.refused).toBeGreaterThanOrEqual(0);
          }
          c.expect(r, calls);
        });
      }
    }

    if (source.meta.kind === 'push') {
      it('refuses an unsigned request with a reason', () => {
        const def = parse(source, cases.valid[0] as Def);
        const r = source.accept?.(def, {
          raw: Buffer.from('{"id":"x"}'),
          body: { id: 'x' },
          headers: {},
          now: Date.now(),
          env: {},
        });
        expect(r?.ok).toBe(false);
        if (r && !r.ok) expect(r.reason).toMatch(/^[a-z_]+$/);
      });
      for (const c of cases.accepts ?? []) {
        it(`accept: ${c.name}`, () => {
          const r = source.accept?.(parse(source, c.def), {
            raw: Buffer.alloc(0),
            body: undefined,
            headers: {},
            now: new FakeClock().now(),
            env: {},
            ...c.request,
          }) as AcceptResult;
          c.expect(r);
        });
      }
    }

    if (source.meta.kind === 'schedule') {
      it('orders occurrences after their anchor and names each event by its time', () => {
        for (const c of cases.schedules ?? []) {
          const sched = source.schedule?.(parse(source, c.def));
          const next = sched?.next(new Date(c.after)) ?? null;
          expect(next?.toISOString() ?? null).toBe(c.next);
          if (next) {
            expect(next.getTime()).toBeGreaterThan(new Date(c.after).getTime());
            const e = sched?.event(next);
            expect(e?.id).toBe(sched?.event(next).id);
            expect(typeof e?.id).toBe('string');
          }
        }
      });
    }
  });
}
