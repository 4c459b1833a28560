// Issue 6 point 7: GET /v1/agents — every field of SPEC §2.3 for a present, a missing, a
// version-untested and an incompatible CLI; the probe cache (path + mtime + version, failed probes
// retried after a minute, ?refresh=true); the same verdicts in /v1/info and the doctor.
import { copyFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../kernel/clock/index.js';
import { agentConfig, FAKE_AGENTS_DIR, FAKE_BINARIES, records } from '../../support/agents.js';
import { buildTestApp } from '../../support/app.js';
import { tempDir } from '../../support/tmp.js';

interface AgentRecord {
  name: string;
  available: boolean;
  path: string;
  version: string;
  version_verdict: string;
  input_verdict: string;
  logged_in: boolean | null;
  models: Array<{ value: string; source: string }>;
  efforts: Array<{ value: string; source: string }>;
  probe_error: string | null;
  probed_at: string | null;
  quota: unknown;
  [key: string]: unknown;
}

async function agents(t: Awaited<ReturnType<typeof buildTestApp>>, query = '') {
  return (await t.json<{ agents: AgentRecord[] }>('GET', `/v1/agents${query}`)).agents;
}

function byName(list: AgentRecord[], name: string): AgentRecord {
  const r = list.find((a) => a.name === name);
  if (!r) throw new Error(`no record for ${name}`);
  return r;
}

/** A private copy of a fake (its own mtime), with the shared plumbing beside it. */
function copyFake(file: 'claude' | 'codex' | 'cursor-agent'): string {
  const dir = tempDir();
  for (const f of [file, 'lib.cjs', 'package.json'])
    copyFileSync(join(FAKE_AGENTS_DIR, f), join(dir, f));
  return join(dir, file);
}

const MISSING = '/nonexistent/svc-test/cursor-agent';

describe('GET /v1/agents', () => {
  it('serves every SPEC §2.3 field for a present, tested claude (cli and curated values merged)', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const claude = byName(await agents(t), 'claude');
    expect(claude).toEqual({
      name: 'claude',
      available: true,
      path: FAKE_BINARIES.claude,
      configured_path: FAKE_BINARIES.claude,
      path_problem: null,
      version: '2.1.330',
      supports_input: true,
      input_verdict: 'supported',
      logged_in: true,
      supports_resume: true,
      supports_skill_listing: true,
      skill_sigil: '/',
      skill_position: 'leading',
      supports_file_mentions: true,
      file_mention_sigil: '@',
      file_mention_position: 'anywhere',
      file_mention_expands: true,
      version_verdict: 'tested',
      tested_versions: '2.1.197,2.1.330',
      restricted_verdict: 'supported',
      // the fake's list_models answer first (cli), then the curated floor it did not list
      models: [
        { value: 'default', source: 'cli' },
        { value: 'sonnet', source: 'cli' },
        { value: 'fake-opus', source: 'cli' },
        { value: 'opus', source: 'curated' },
        { value: 'haiku', source: 'curated' },
      ],
      efforts: [
        { value: 'low', source: 'cli' },
        { value: 'medium', source: 'cli' },
        { value: 'high', source: 'cli' },
        { value: 'max', source: 'cli' },
        { value: 'xhigh', source: 'curated' },
      ],
      default_model: '',
      default_effort: '',
      probed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      probe_error: null,
      quota: null,
    });
  });

  it('answers a missing CLI with its traits and verdicts, the curated catalogue and no version', async () => {
    const t = await buildTestApp({
      config: agentConfig({}, '', { ...FAKE_BINARIES, cursor: MISSING }),
    });
    const cursor = byName(await agents(t), 'cursor');
    expect(cursor).toMatchObject({
      name: 'cursor',
      available: false,
      path: '',
      version: '',
      version_verdict: '',
      input_verdict: 'unsupported',
      logged_in: null,
      supports_resume: true,
      supports_skill_listing: false,
      restricted_verdict: 'supported',
      probe_error: null,
      // the lookup that found nothing is the probe
      probed_at: new Date(t.clock.now()).toISOString(),
      quota: null,
    });
    expect(cursor.models.every((m) => m.source === 'curated')).toBe(true);
    // a missing claude: the input verdict is unknown (never refuses), not unsupported
    const t2 = await buildTestApp({
      config: agentConfig({}, '', { ...FAKE_BINARIES, claude: '/nonexistent/claude' }),
    });
    expect(byName(await agents(t2), 'claude')).toMatchObject({
      available: false,
      input_verdict: 'unknown',
      supports_input: true,
    });
  });

  it('calls a build outside tested_versions untested, and one predating the input protocol incompatible', async () => {
    const t = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_VERSION: '2.1.999' }) });
    expect(byName(await agents(t), 'claude')).toMatchObject({
      version: '2.1.999',
      version_verdict: 'untested',
      input_verdict: 'supported',
      logged_in: true,
    });
    const old = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_VERSION: '2.0.5' }) });
    expect(byName(await agents(old), 'claude')).toMatchObject({
      version: '2.0.5',
      version_verdict: 'incompatible',
      input_verdict: 'unsupported',
      // the auth probe is asked only on builds in [2.1.41, 3.0.0): never guessed
      logged_in: null,
    });
  });

  it('reports logged_in false and null from the auth probe, never a guess', async () => {
    const out = await buildTestApp({
      config: agentConfig({ FAKE_CODEX_LOGGED_IN: '0', FAKE_CURSOR_LOGGED_IN: 'unknown' }),
    });
    const list = await agents(out);
    expect(byName(list, 'codex').logged_in).toBe(false);
    expect(byName(list, 'cursor').logged_in).toBe(null);
    expect(byName(list, 'codex')).toMatchObject({ version: '0.169.0', version_verdict: 'tested' });
    expect(byName(list, 'cursor').version_verdict).toBe('untested');
  });

  it('serves the curated catalogue with probe_error when the option probe fails', async () => {
    const dir = tempDir();
    const broken = join(dir, 'claude');
    // Knows its version, fails everything else.
    writeFileSync(
      broken,
      '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "2.1.330 (Claude Code)"; exit 0; fi\necho boom >&2\nexit 2\n',
      { mode: 0o755 },
    );
    const t = await buildTestApp({ config: agentConfig({}, '', { claude: broken }) });
    const claude = byName(await agents(t), 'claude');
    expect(claude.probe_error).toMatch(/^list_models: exited 2: boom/);
    expect(claude.version).toBe('2.1.330');
    expect(claude.models).toEqual([
      { value: 'sonnet', source: 'curated' },
      { value: 'opus', source: 'curated' },
      { value: 'haiku', source: 'curated' },
    ]);
  });

  it('caches by binary path and mtime: clean probes are kept, a changed binary or refresh=true re-probes', async () => {
    const bin = copyFake('claude');
    const log = join(tempDir(), 'record.jsonl');
    const t = await buildTestApp({
      config: agentConfig({ FAKE_CLAUDE_RECORD: log }, '', { claude: bin }),
    });
    // One auth probe per full probe (--version is answered before the fake records anything).
    const versionCalls = () =>
      records(log).filter((r) => r.event === 'start' && (r.argv as string[])[0] === 'auth').length;
    const first = byName(await agents(t), 'claude');
    expect(versionCalls()).toBe(1);
    await (t.clock as FakeClock).advance('1h');
    await agents(t);
    expect(versionCalls()).toBe(1);
    await agents(t, '?refresh=true');
    expect(versionCalls()).toBe(2);
    const later = new Date(Date.now() + 60_000);
    utimesSync(bin, later, later);
    await agents(t);
    expect(versionCalls()).toBe(3);
    expect(first.probed_at).not.toBeNull();
  });

  it('probes a failed binary again after a minute, not before', async () => {
    const dir = tempDir();
    const counter = join(dir, 'count');
    mkdirSync(dir, { recursive: true });
    const broken = join(dir, 'claude');
    writeFileSync(
      broken,
      `#!/bin/sh\nif [ "$1" = "--version" ]; then echo x >> ${counter}; echo "2.1.330 (Claude Code)"; exit 0; fi\nexit 2\n`,
      { mode: 0o755 },
    );
    const t = await buildTestApp({ config: agentConfig({}, '', { claude: broken }) });
    const calls = async () => {
      const { readFileSync } = await import('node:fs');
      return readFileSync(counter, 'utf8').trim().split('\n').length;
    };
    await agents(t);
    expect(await calls()).toBe(1);
    await (t.clock as FakeClock).advance('59s');
    await agents(t);
    expect(await calls()).toBe(1);
    await (t.clock as FakeClock).advance('1s');
    await agents(t);
    expect(await calls()).toBe(2);
  });

  it('refuses a refresh value that is not a boolean', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const res = await t.api('GET', '/v1/agents?refresh=maybe');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('validation_failed');
  });
});

describe('the same verdicts in /v1/info and the doctor', () => {
  it('info serves availability, verdicts and quota from the cache without probing; doctor probes', async () => {
    const log = join(tempDir(), 'record.jsonl');
    const t = await buildTestApp({
      config: agentConfig({ FAKE_CLAUDE_RECORD: log }, '', {
        ...FAKE_BINARIES,
        cursor: MISSING,
      }),
    });
    const info = await t.json<{ agents: Array<Record<string, unknown>> }>('GET', '/v1/info');
    expect(records(log)).toEqual([]);
    expect(info.agents.find((a) => a.name === 'claude')).toEqual({
      name: 'claude',
      available: true,
      path: FAKE_BINARIES.claude,
      version: '',
      logged_in: null,
      supports_input: true,
      version_verdict: '',
      tested_versions: '2.1.197,2.1.330',
      restricted_verdict: 'supported',
      quota: null,
    });
    const doctor = await t.json<{ agents: Array<Record<string, unknown>> }>('GET', '/v1/doctor');
    expect(doctor.agents.find((a) => a.name === 'claude')).toMatchObject({
      version: '2.1.330',
      version_verdict: 'tested',
      logged_in: true,
    });
    expect(doctor.agents.find((a) => a.name === 'cursor')).toMatchObject({ available: false });
    const again = await t.json<{ agents: Array<Record<string, unknown>> }>('GET', '/v1/info');
    expect(again.agents.find((a) => a.name === 'claude')).toMatchObject({
      version: '2.1.330',
      version_verdict: 'tested',
    });
  });
});
