// The agents service's pure parts: resolution order (decision 045), the step walk, merged
// catalogues and version verdicts (decision 047), the tightest quota window (decision 042), and
// binary lookup.
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentSteps,
  buildRecord,
  locateBinary,
  mergeCatalogue,
  resolveAgentValues,
} from '../../../kernel/agents/index.js';
import { tightest } from '../../../kernel/agents/quota.js';
import { versionVerdict } from '../../../kernel/agents/record.js';
import { Registry } from '../../../kernel/plugin/index.js';
import { claudeAdapter } from '../../../plugins/agents/claude/index.js';
import { codexAdapter } from '../../../plugins/agents/codex/index.js';
import { cursorAdapter } from '../../../plugins/agents/cursor/index.js';
import agentStep from '../../../plugins/steps/agent/index.js';
import fanOut from '../../../plugins/steps/fan_out/index.js';
import parallel from '../../../plugins/steps/parallel/index.js';
import { tempDir } from '../../support/tmp.js';

const adapters = {
  adapter: (n: string) =>
    ({ claude: claudeAdapter, codex: codexAdapter, cursor: cursorAdapter })[n],
  defaultAgent: () => 'claude',
};

describe('resolveAgentValues', () => {
  it('takes step, then task, then carried defaults, then workflow defaults, then the adapter', () => {
    const scope = {
      overrides: { model: 'task-model' },
      carried: { agent: 'codex', effort: 'carried-effort' },
      defaults: { agent: 'cursor', model: 'wf-model', effort: 'wf-effort' },
    };
    expect(resolveAgentValues({ effort: 'step-effort' }, scope, adapters)).toEqual({
      agent: { value: 'codex', source: 'workflow' },
      model: { value: 'task-model', source: 'task' },
      effort: { value: 'step-effort', source: 'step' },
    });
    expect(resolveAgentValues({}, { overrides: {} }, adapters)).toEqual({
      agent: { value: 'claude', source: 'adapter' },
      model: { value: '', source: 'adapter' },
      effort: { value: '', source: 'adapter' },
    });
  });

  it('keeps an empty model as a value, and drops effort for an adapter without one', () => {
    const r = resolveAgentValues(
      { agent: 'cursor', model: '', effort: 'high' },
      { overrides: { model: 'x' } },
      adapters,
    );
    expect(r.model).toEqual({ value: '', source: 'step' });
    expect(r.effort).toEqual({ value: '', source: 'adapter' });
  });
});

describe('agentSteps', () => {
  it('finds agent steps at any depth, with a lane’s values as its subtree’s overrides', async () => {
    const registry = new Registry();
    const api = {
      registerStepType: (s: never) => registry.registerStepType('t', s),
      registerAgent: () => {},
      registerTriggerSource: () => {},
      registerForge: () => {},
    };
    // An agent step is known by its type's declared runsAgent (decision 225): the type is registered.
    await agentStep.setup(api as never);
    await parallel.setup(api as never);
    await fanOut.setup(api as never);
    const found = agentSteps(
      [
        { id: 'p', type: 'parallel', steps: [{ id: 'a', type: 'agent', prompt: 'x' }] },
        {
          id: 'f',
          type: 'fan_out',
          lanes: [{ id: 'l', agent: 'codex', steps: [{ id: 'b', type: 'agent', prompt: 'y' }] }],
          merge: { on_conflict: 'agent', agent: { id: 'r', prompt: 'z' } },
        },
      ],
      { overrides: { agent: 'cursor' } },
      registry,
    );
    expect(found.map((f) => [f.where, f.step.id, f.scope.overrides.agent])).toEqual([
      ['steps[0].steps[0]', 'a', 'cursor'],
      ['steps[1].lanes[0].steps[0]', 'b', 'codex'],
      ['steps[1].merge.agent', 'r', 'cursor'],
    ]);
  });
});

describe('records', () => {
  it('merges cli values first, then curated ones not listed', () => {
    expect(mergeCatalogue(['b', 'x'], ['a', 'b'])).toEqual([
      { value: 'b', source: 'cli' },
      { value: 'x', source: 'cli' },
      { value: 'a', source: 'curated' },
    ]);
    expect(mergeCatalogue(null, ['a'])).toEqual([{ value: 'a', source: 'curated' }]);
  });

  it('judges versions: tested, incompatible, untested, empty', () => {
    expect(versionVerdict(claudeAdapter, '2.1.330')).toBe('tested');
    expect(versionVerdict(claudeAdapter, '2.0.9')).toBe('incompatible');
    expect(versionVerdict(claudeAdapter, '2.1.400')).toBe('untested');
    expect(versionVerdict(codexAdapter, '0.1.0')).toBe('untested');
    expect(versionVerdict(claudeAdapter, null)).toBe('');
  });

  it('never reports a login outside the adapter’s probe window', () => {
    const r = buildRecord({
      adapter: claudeAdapter,
      platform: 'linux',
      path: '/bin/claude',
      probe: { version: '2.1.40', logged_in: true, models: null, efforts: null, probe_error: null },
      probedAt: null,
      quota: null,
    });
    expect(r.logged_in).toBeNull();
    expect(
      buildRecord({
        adapter: cursorAdapter,
        platform: 'win32',
        path: null,
        probe: null,
        probedAt: null,
        quota: null,
      }).restricted_verdict,
    ).toBe('unsupported');
  });
});

describe('quota', () => {
  it('takes the highest percentage, ties to the earliest named reset', () => {
    expect(
      tightest([
        { name: 'a', used_percent: 50, window: null },
        { name: 'b', used_percent: 90, window: null },
        { name: 'c', used_percent: 90, window: null, resets_at: '2026-01-02T00:00:00Z' },
        { name: 'd', used_percent: 90, window: null, resets_at: '2026-01-01T00:00:00Z' },
      ])?.name,
    ).toBe('d');
  });
});

describe('locateBinary', () => {
  it('uses a configured path as given, else the first executable on PATH, keyed by its real file', () => {
    const a = tempDir();
    const b = tempDir();
    writeFileSync(join(b, 'tool'), '#!/bin/sh\n');
    chmodSync(join(b, 'tool'), 0o755);
    writeFileSync(join(a, 'tool'), 'not executable');
    const found = locateBinary('tool', '', { PATH: `${a}:relative/dir:${b}` }, 'linux');
    expect(found.path).toBe(join(b, 'tool'));
    expect(found.key).toContain(join(b, 'tool'));
    const link = join(tempDir(), 'linked');
    mkdirSync(join(link, '..'), { recursive: true });
    symlinkSync(join(b, 'tool'), link);
    expect(locateBinary('tool', link, {}, 'linux')).toMatchObject({
      path: link,
      key: found.key,
    });
    expect(locateBinary('tool', '/nonexistent/tool', { PATH: b }, 'linux')).toEqual({
      path: null,
      looked: 'agents path /nonexistent/tool',
      key: '',
      configured: '/nonexistent/tool',
      problem: 'missing',
    });
    // Issue 19 point 2: a configured file that cannot run is named as such, not as absent.
    expect(locateBinary('tool', join(a, 'tool'), { PATH: b }, 'linux')).toMatchObject({
      path: null,
      problem: 'not_executable',
    });
    expect(locateBinary('absent', '', { PATH: b }, 'linux').path).toBeNull();
  });
});
