/**
 * The contract suite every agent adapter runs (built-in or a user's plugin), like ESLint's rule
 * tester: it checks what the contract promises the engine, with the adapter's own cases as data.
 *
 *   describeAgentAdapter(claudeAdapter, { plugin, golden: [...], quotedUsageLimit: {...} });
 *
 * Golden cases replay recorded streams from test/fixtures/streams/<agent>/<scenario>_<version>.jsonl
 * and compare the whole verdict and every tool summary exactly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type {
  AgentAdapter,
  AgentEvent,
  AgentRunSpec,
  AgentVerdict,
  ParserOptions,
  PendingInput,
  PluginApi,
  ProbeOutcome,
  SvcPlugin,
  ToolUse,
} from '../../kernel/plugin/index.js';

export const STREAMS_DIR = join(import.meta.dirname, '..', 'fixtures', 'streams');

export interface GoldenCase {
  /** Path under test/fixtures/streams, e.g. `claude/success_2.1.330.jsonl`. */
  file: string;
  exit?: { code: number | null; signal?: string | null; stderr?: string };
  /** The clock at finish (reset-time checks). Default 2026-11-21T21:00:00Z. */
  now?: Date;
  parserOptions?: ParserOptions;
  /** The whole verdict, compared with toEqual. */
  verdict: AgentVerdict;
  /** Every tool_use tool in stream order, compared exactly; omit to skip. */
  tools?: ToolUse[];
  /** Further checks on the events. */
  events?: (events: AgentEvent[]) => void;
}

export interface AgentAdapterCases {
  /** The plugin module's default export; checks its name and that setup registers this adapter. */
  plugin?: SvcPlugin;
  /** Versions to plan runs for (input mode may depend on it); null (unprobed) is always added. */
  cli_versions?: (string | null)[];
  golden: GoldenCase[];
  /**
   * A run in this CLI's dialect that succeeds while the agent's answer quotes the CLI's own
   * usage-limit sentence: it must not be classified a usage limit (decision 111).
   */
  quotedUsageLimit: { lines: string[]; exit?: { code: number | null } };
}

const TRAIT_TYPES = {
  supports_input: 'boolean',
  supports_resume: 'boolean',
  supports_restricted_resume: 'boolean',
  supports_skill_listing: 'boolean',
  skill_sigil: ['/', '$', ''],
  skill_position: ['leading', 'anywhere'],
  supports_file_mentions: 'boolean',
  file_mention_sigil: ['@', ''],
  file_mention_position: ['leading', 'anywhere'],
  file_mention_expands: 'boolean',
  supports_effort: 'boolean',
  reports_cost: 'boolean',
  supports_mcp: 'boolean',
} as const;

const NOW = new Date('2026-11-21T21:00:00Z');
const PROMPT = 'svc-contract-prompt-7f3a: fix the failing test\nsecond line "quoted" $HOME `tick`';
const TOKEN = 'svc-contract-bearer-token-91c2';

export function readStream(file: string): string[] {
  return readFileSync(join(STREAMS_DIR, file), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

export function replay(adapter: AgentAdapter, c: Omit<GoldenCase, 'verdict'>) {
  const parser = adapter.createParser(c.parserOptions);
  const events = readStream(c.file).flatMap((l) => parser.push(l));
  const verdict = parser.finish({
    code: c.exit?.code ?? 0,
    signal: c.exit?.signal ?? null,
    stderr_tail: c.exit?.stderr ?? '',
    now: c.now ?? NOW,
  });
  return { events, verdict };
}

function baseSpec(overrides: Partial<AgentRunSpec> = {}): AgentRunSpec {
  return {
    prompt: PROMPT,
    cwd: '/wt/task-1',
    permission_mode: 'full-auto',
    on_input: 'wait',
    cli_version: null,
    scratch_dir: '/scratch/run-1',
    platform: 'linux',
    is_root: false,
    ...overrides,
  };
}

export function describeAgentAdapter(adapter: AgentAdapter, cases: AgentAdapterCases): void {
  describe(`agent adapter contract: ${adapter.name}`, () => {
    describe('identity and traits', () => {
      it('has a lowercase name and a binary that is not the cursor editor launcher', () => {
        expect(adapter.name).toMatch(/^[a-z][a-z0-9_]*$/);
        expect(adapter.binary).not.toBe('');
        expect(adapter.binary).not.toBe('cursor');
      });

      it('states every trait with a value of the right type, and nothing else', () => {
        expect(Object.keys(adapter.traits).sort()).toEqual(Object.keys(TRAIT_TYPES).sort());
        for (const [key, type] of Object.entries(TRAIT_TYPES)) {
          const value = adapter.traits[key as keyof typeof TRAIT_TYPES];
          if (typeof type === 'string') expect(typeof value, key).toBe(type);
          else expect(type, key).toContain(value);
        }
      });

      it('implements exactly the optional members its traits promise', () => {
        expect(adapter.input !== undefined).toBe(adapter.traits.supports_input);
        expect(adapter.listSkills !== undefined).toBe(adapter.traits.supports_skill_listing);
      });

      it('has a coherent catalogue and tested-version list', () => {
        const { catalogue } = adapter;
        if (catalogue.default_model !== '')
          expect(catalogue.models).toContain(catalogue.default_model);
        if (catalogue.default_effort !== '')
          expect(catalogue.efforts).toContain(catalogue.default_effort);
        if (!adapter.traits.supports_effort) expect(catalogue.efforts).toEqual([]);
        for (const v of adapter.tested_versions) expect(v).not.toMatch(/[,\s]/);
      });

      it('answers restricted and input verdicts purely, even for a missing CLI', () => {
        for (const p of ['linux', 'darwin', 'win32'] as const) {
          expect(['supported', 'unsupported', 'unknown']).toContain(adapter.restrictedVerdict(p));
        }
        expect(adapter.inputVerdict(null)).toBe(
          adapter.traits.supports_input ? 'unknown' : 'unsupported',
        );
        if (!adapter.traits.supports_input)
          expect(adapter.inputVerdict('1.2.3')).toBe('unsupported');
      });

      if (cases.plugin) {
        const plugin = cases.plugin;
        it('is registered by its plugin, named svc:agents/<name>', async () => {
          expect(plugin.name).toBe(`svc:agents/${adapter.name}`);
          expect(plugin.svc).toBe('^2.0.0');
          const registered: unknown[] = [];
          const other: unknown[] = [];
          const api: PluginApi = {
            registerAgent: (a) => registered.push(a),
            registerStepType: (s) => other.push(s),
            registerTriggerSource: (t) => other.push(t),
            registerForge: (f) => other.push(f),
          };
          await plugin.setup(api);
          expect(registered).toEqual([adapter]);
          expect(other).toEqual([]);
        });
      }
    });

    describe('run plans', () => {
      const versions = [null, ...(cases.cli_versions ?? [])];
      const specs: AgentRunSpec[] = [];
      for (const cli_version of versions) {
        for (const permission_mode of ['full-auto', 'restricted'] as const) {
          for (const on_input of ['wait', 'deny'] as const) {
            specs.push(
              baseSpec({ cli_version, permission_mode, on_input, model: 'm-1', effort: 'high' }),
            );
            specs.push(
              baseSpec({ cli_version, permission_mode, on_input, resume_session_id: 'sess-42' }),
            );
          }
        }
      }

      it('never puts the prompt on argv or in env; stdin carries it', () => {
        for (const spec of specs) {
          const r = adapter.planRun(spec);
          if (!r.ok) continue;
          const firstLine = PROMPT.split('\n')[0] as string;
          for (const a of r.plan.args) expect(a).not.toContain(firstLine);
          for (const v of Object.values(r.plan.env)) expect(v).not.toContain(firstLine);
          if (r.plan.stdin.kind === 'close') expect(r.plan.stdin.data).toBe(PROMPT);
          else expect(r.plan.stdin.data).toContain(JSON.stringify(PROMPT).slice(1, -1));
        }
      });

      it('is pure: the same spec gives the same plan', () => {
        for (const spec of specs)
          expect(adapter.planRun(spec)).toEqual(adapter.planRun({ ...spec }));
      });

      it('plans restricted and full-auto differently', () => {
        for (const cli_version of versions) {
          const full = adapter.planRun(baseSpec({ cli_version }));
          const restricted = adapter.planRun(
            baseSpec({ cli_version, permission_mode: 'restricted' }),
          );
          expect(full.ok && restricted.ok).toBe(true);
          if (full.ok && restricted.ok) expect(restricted.plan.args).not.toEqual(full.plan.args);
        }
      });

      it('refuses restricted where its verdict is unsupported, without falling back', () => {
        for (const platform of ['linux', 'darwin', 'win32'] as const) {
          const r = adapter.planRun(baseSpec({ permission_mode: 'restricted', platform }));
          if (adapter.restrictedVerdict(platform) === 'unsupported') {
            expect(r).toMatchObject({ ok: false, reason: 'restricted_unsupported' });
          } else expect(r.ok).toBe(true);
        }
      });

      it('drops effort when the CLI has no effort setting', () => {
        const r = adapter.planRun(baseSpec({ effort: 'effort-value-x' }));
        expect(r.ok).toBe(true);
        if (r.ok && !adapter.traits.supports_effort) {
          expect(r.plan.args.join(' ')).not.toContain('effort-value-x');
        }
        if (r.ok && adapter.traits.supports_effort) {
          expect(r.plan.args.join(' ')).toContain('effort-value-x');
        }
      });

      it('resumes its own session when it supports resume', () => {
        const r = adapter.planRun(baseSpec({ resume_session_id: 'sess-42' }));
        if (adapter.traits.supports_resume) {
          expect(r.ok && r.plan.args.includes('sess-42')).toBe(true);
          const restricted = adapter.planRun(
            baseSpec({ resume_session_id: 'sess-42', permission_mode: 'restricted' }),
          );
          expect(restricted.ok).toBe(adapter.traits.supports_restricted_resume);
        }
      });

      it('wires MCP without leaking the bearer token to argv, or refuses mcp_unsupported', () => {
        const spec = baseSpec({
          mcp: { url: 'http://127.0.0.1:7777/mcp/step/1', bearer_token: TOKEN },
        });
        const r = adapter.planRun(spec);
        if (!adapter.traits.supports_mcp) {
          expect(r).toMatchObject({ ok: false, reason: 'mcp_unsupported' });
          return;
        }
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.plan.args.join(' ')).not.toContain(TOKEN);
        const carried = [...Object.values(r.plan.env), ...r.plan.files.map((f) => f.content)].join(
          '\n',
        );
        expect(carried).toContain(TOKEN);
        for (const f of r.plan.files) expect(f.path.startsWith(`${spec.scratch_dir}/`)).toBe(true);
      });

      it('never overrides the user config homes', () => {
        for (const spec of specs) {
          const r = adapter.planRun(spec);
          if (!r.ok) continue;
          for (const k of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'HOME'])
            expect(r.plan.env).not.toHaveProperty(k);
        }
      });
    });

    describe('stream parser', () => {
      for (const c of cases.golden) {
        it(`golden ${c.file}`, () => {
          const { events, verdict } = replay(adapter, c);
          expect(verdict).toEqual(c.verdict);
          if (c.tools) {
            expect(events.flatMap((e) => (e.type === 'tool_use' ? e.tools : []))).toEqual(c.tools);
          }
          const sessions = events.filter((e) => e.type === 'session');
          expect(sessions.length).toBeLessThanOrEqual(1);
          if (verdict.session_id !== null && sessions[0])
            expect(sessions[0]).toEqual({ type: 'session', id: verdict.session_id });
          c.events?.(events);
        });
      }

      it('ignores unknown and malformed lines without throwing', () => {
        const parser = adapter.createParser();
        const junk = [
          '',
          'not json',
          '[]',
          'null',
          '42',
          '{"type":"result"',
          '{"type":"definitely_unknown","x":1}',
          '{"type":"assistant","message":null}',
          '{"type":"user","message":{"content":"text"}}',
          '{"type":"item.completed","item":null}',
          '{"type":"tool_call","subtype":"started","tool_call":7}',
          '{"type":"control_cancel_request"}',
          '{"type":"system","subtype":"init","session_id":5}',
          '\u0000\u0001binary',
        ];
        for (const line of junk) expect(Array.isArray(parser.push(line))).toBe(true);
        const verdict = parser.finish({
          code: 0,
          signal: null,
          stderr_tail: 'boom on stderr',
          now: NOW,
        });
        expect(verdict.kind).toBe('failed');
        if (verdict.kind === 'failed') {
          expect(verdict.message.startsWith('stream ended without a result event')).toBe(true);
          expect(verdict.message).toContain('boom on stderr');
        }
      });

      it('reports an empty stream with a nonzero exit as nonzero_exit with the stderr tail', () => {
        const parser = adapter.createParser();
        const verdict = parser.finish({
          code: 1,
          signal: null,
          stderr_tail: 'fatal: no model',
          now: NOW,
        });
        expect(verdict).toMatchObject({ kind: 'failed', reason: 'nonzero_exit' });
        if (verdict.kind === 'failed') expect(verdict.message).toContain('fatal: no model');
      });

      it('does not take a quoted usage-limit sentence in a successful answer for a usage limit', () => {
        const parser = adapter.createParser();
        for (const l of cases.quotedUsageLimit.lines) parser.push(l);
        const verdict = parser.finish({
          code: cases.quotedUsageLimit.exit?.code ?? 0,
          signal: null,
          stderr_tail: '',
          now: NOW,
        });
        expect(verdict.kind).toBe('succeeded');
      });
    });

    describe('probe', () => {
      it('never throws and never guesses when the binary cannot be run', async () => {
        const probe = await adapter.probe({
          path: '/nonexistent/bin',
          run: async (): Promise<ProbeOutcome> => ({ kind: 'spawn_failed', message: 'ENOENT' }),
        });
        expect(probe).toMatchObject({ version: null, logged_in: null, models: null });
        expect(probe.probe_error).not.toBeNull();
      });

      it('reads a timed-out probe as unknown, never as logged out', async () => {
        const probe = await adapter.probe({
          path: '/bin/agent',
          run: async (): Promise<ProbeOutcome> => ({ kind: 'timed_out', stdout: '', stderr: '' }),
        });
        expect(probe.logged_in).toBeNull();
      });
    });

    if (adapter.input) {
      const input = adapter.input;
      describe('input protocol', () => {
        const question: PendingInput = {
          kind: 'question',
          questions: [
            { text: 'Which colour?', options: ['Red', 'Blue'], multi_select: false },
            { text: 'Which toppings?', options: ['A', 'B'], multi_select: true },
          ],
        };
        const permission: PendingInput = {
          kind: 'permission',
          permission: { tool: 'Bash', summary: 'rm -rf build' },
        };
        const codes = (pending: PendingInput, body: unknown) => {
          const r = input.validateAnswer(pending, body);
          return r.ok ? [] : r.issues.map((i) => `${i.code}:${i.path.join('.')}`);
        };

        it('validates answers against the pending request, naming the field', () => {
          expect(
            codes(question, { answers: { 'Which colour?': 'Red', 'Which toppings?': ['A', 'B'] } }),
          ).toEqual([]);
          expect(codes(question, { answers: { 'Which colour?': 'Red' } })).toEqual([
            'required:answers.Which toppings?',
          ]);
          expect(
            codes(question, {
              answers: { 'Which colour?': ['Red', 'Blue'], 'Which toppings?': 'A' },
            }),
          ).toEqual(['too_many_values:answers.Which colour?']);
          expect(
            codes(question, {
              answers: { 'Which colour?': 'Red', 'Which toppings?': 'A', Nope: 'x' },
            }),
          ).toEqual(['unknown_question:answers.Nope']);
          expect(
            codes(question, { answers: { 'Which colour?': ' ', 'Which toppings?': 'A' } }),
          ).toEqual(['empty_value:answers.Which colour?']);
          expect(codes(question, { allow: true })).toEqual([
            'not_allowed:allow',
            'required:answers',
          ]);
          expect(codes(permission, { allow: false })).toEqual([]);
          expect(codes(permission, {})).toEqual(['required:allow']);
          expect(codes(permission, { allow: true, answers: {} })).toEqual(['not_allowed:answers']);
          expect(codes(permission, { allow: 'yes' })).toEqual(['invalid_type:allow']);
        });

        it('answers and denies with newline-terminated JSON lines', () => {
          const request = { request_id: 'r-1', pending: question, payload: {} };
          const lines = [
            input.answer(request, {
              answers: { 'Which colour?': 'Red', 'Which toppings?': ['A'] },
            }),
            input.deny(request),
            input.answer({ request_id: 'r-2', pending: permission, payload: {} }, { allow: true }),
            input.deny({ request_id: 'r-2', pending: permission, payload: {} }, 'no'),
          ];
          for (const text of lines) {
            expect(text.endsWith('\n')).toBe(true);
            for (const l of text.trim().split('\n')) expect(() => JSON.parse(l)).not.toThrow();
          }
        });
      });
    }

    if (adapter.quota) {
      const quota = adapter.quota;
      describe('quota', () => {
        if (quota.kind === 'pull') {
          it('never throws when the source cannot be read', async () => {
            const reading = await quota.read({
              path: '/bin/agent',
              run: async (): Promise<ProbeOutcome> => ({ kind: 'spawn_failed', message: 'ENOENT' }),
            });
            expect(reading.kind).toBe('error');
          });
        } else {
          it('refuses a push body naming no window', () => {
            expect(quota.parsePush({ source: quota.source, windows: [] }).ok).toBe(false);
            expect(quota.parsePush(null).ok).toBe(false);
          });
        }
      });
    }
  });
}
