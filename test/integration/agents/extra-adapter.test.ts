// Issue 6 point 1: adding a fourth adapter is adding one folder. A plugin written into a temp
// directory and named in config `plugins:` registers an agent the kernel has never heard of; it is
// probed and listed on /v1/agents, offered by the workflow schema, validated at creation and runs
// agent steps through the daemon like the built-ins (docs/adding-an-agent.md).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig, agentWorkflow, stepRuns } from '../../support/agents.js';
import { buildTestApp } from '../../support/app.js';
import { addProject, createTask, postTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

/** A tiny CLI: `--version`, else reads the prompt and prints two JSON lines. */
const CLI = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "echo-agent 1.0.0"; exit 0; fi
prompt=$(cat)
printf '{"type":"say","text":"thinking about it"}\\n'
printf '{"type":"done","result":"echoed: %s","tokens":7}\\n' "$prompt"
`;

/** The plugin folder: plain ESM, no imports (a user's plugin need not see our sources). */
const PLUGIN = `
const traits = {
  supports_input: false, supports_resume: false, supports_restricted_resume: false,
  supports_skill_listing: false, skill_sigil: '', skill_position: 'anywhere',
  supports_file_mentions: false, file_mention_sigil: '', file_mention_position: 'anywhere',
  file_mention_expands: false, supports_effort: false, reports_cost: false, supports_mcp: false,
};
const adapter = {
  name: 'echo',
  binary: 'echo-agent',
  traits,
  catalogue: { models: ['parrot'], efforts: [], default_model: 'parrot', default_effort: '' },
  tested_versions: ['1.0.0'],
  restrictedVerdict: () => 'unsupported',
  inputVerdict: () => 'unsupported',
  async probe(ctx) {
    const out = await ctx.run({ args: ['--version'], timeout_ms: 5000 });
    const m = out.kind === 'exited' ? /(\\d+\\.\\d+\\.\\d+)/.exec(out.stdout) : null;
    return { version: m ? m[1] : null, logged_in: null, models: ['parrot', 'macaw'], efforts: null, probe_error: null };
  },
  planRun(spec) {
    if (spec.permission_mode === 'restricted')
      return { ok: false, reason: 'restricted_unsupported', message: 'echo cannot restrict' };
    return { ok: true, plan: { args: ['--model', spec.model ?? ''], env: {}, stdin: { kind: 'close', data: spec.prompt }, files: [] } };
  },
  createParser() {
    let result = null;
    let tokens = null;
    return {
      push(line) {
        let m;
        try { m = JSON.parse(line); } catch { return []; }
        if (m.type === 'say') return [{ type: 'output', text: m.text }];
        if (m.type === 'done') { result = m.result; tokens = m.tokens; return [{ type: 'result', is_error: false, text: m.result }]; }
        return [];
      },
      finish(exit) {
        const usage = { input_tokens: tokens, output_tokens: tokens, cost_usd: null, session_totals: null, session_id: null };
        if (exit.code === 0 && result !== null) return { kind: 'succeeded', result_text: result, ...usage };
        return { kind: 'failed', reason: 'nonzero_exit', message: 'stream ended without a result event: ' + exit.stderr_tail, ...usage };
      },
    };
  },
};
export default { name: 'acme:agents/echo', svc: '^2.0.0', setup(api) { api.registerAgent(adapter); } };
`;

describe('a fourth adapter from a plugin folder', () => {
  it('is probed, listed, validated and runs agent steps like the built-ins', async () => {
    const root = tempDir();
    const folder = join(root, 'echo');
    mkdirSync(folder);
    writeFileSync(join(folder, 'index.js'), PLUGIN);
    writeFileSync(join(folder, 'package.json'), '{"type":"module"}\n');
    const bin = join(root, 'echo-agent');
    writeFileSync(bin, CLI, { mode: 0o755 });
    const t = await buildTestApp({
      config: agentConfig({}, `plugins:\n  - ${folder}\n`, { echo: bin }),
    });

    const { agents } = await t.json<{ agents: Array<Record<string, unknown>> }>(
      'GET',
      '/v1/agents',
    );
    expect(agents.map((a) => a.name)).toEqual(['claude', 'codex', 'cursor', 'echo']);
    expect(agents.find((a) => a.name === 'echo')).toMatchObject({
      available: true,
      path: bin,
      version: '1.0.0',
      version_verdict: 'tested',
      tested_versions: '1.0.0',
      restricted_verdict: 'unsupported',
      input_verdict: 'unsupported',
      models: [
        { value: 'parrot', source: 'cli' },
        { value: 'macaw', source: 'cli' },
      ],
      default_model: 'parrot',
    });
    const schema = await t.json<{ agents?: unknown }>('GET', '/v1/workflows/schema');
    expect(JSON.stringify(schema)).toContain('"echo"');

    const { project } = await addProject(t, {
      echo: agentWorkflow('echo', { agent: 'echo' }),
    });
    // its restricted verdict refuses a restricted task at creation, naming step and agent
    const refused = await postTask(t, {
      project_id: project.id,
      title: 'x',
      workflow: 'echo',
      restricted: true,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toMatch(/step work would run echo restricted/);

    const task = await createTask(t, { project_id: project.id, title: 'hi', workflow: 'echo' });
    await waitState(t, task.id, 'done');
    expect((await stepRuns(t, task.id))[0]).toMatchObject({
      agent: 'echo',
      model: 'parrot',
      state: 'succeeded',
      result_summary: 'echoed: Do hi',
      input_tokens: 7,
      cost_usd: null,
    });
  });
});
