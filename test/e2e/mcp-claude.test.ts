// Issue 20 point 3 with the real Claude Code CLI (the pinned devDependency, decision 048) against
// the Anthropic mock: `claude mcp add svc -- svc mcp stdio` as docs/mcp.md shows it, then `claude
// -p` calling svc's tools through the relay — before and after a daemon restart on another port,
// with nothing in claude's configuration that names the port or the token. The model sees every
// tool field described.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { type AnthropicTurn, startAnthropicMock } from '../fixtures/mock-models/anthropic.js';
import type { MockServer } from '../fixtures/mock-models/sse.js';
import { dirsIn, HAVE_BUILD, SVC_BIN, startDaemon } from '../support/daemon-proc.js';
import { gitRepo } from '../support/git.js';
import { tempDir } from '../support/tmp.js';

/** The binary: SVC_REAL_CLAUDE (a path, or `skip`), else the pinned devDependency when installed. */
const BIN = ((): string | undefined => {
  const set = process.env.SVC_REAL_CLAUDE;
  if (set === 'skip') return undefined;
  if (set) return set;
  const installed = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'claude');
  return existsSync(installed) ? installed : undefined;
})();

describe.skipIf(!BIN || !HAVE_BUILD)('the real claude through svc mcp stdio', () => {
  let mock: MockServer | undefined;
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
  });

  it('calls svc tools configured as a command, across a daemon restart', async () => {
    const dirs = dirsIn(tempDir('svc-e2e-claude-'));
    let daemon = await startDaemon(dirs);
    onTestFinished(() => daemon.stop());
    const project = await daemon.json<{ id: number }>('POST', '/v1/projects', {
      path: gitRepo().path,
    });

    const home = mkdtempSync(join(tmpdir(), 'svc-claude-home-'));
    const cwd = mkdtempSync(join(tmpdir(), 'svc-claude-wt-'));
    execFileSync('git', ['init', '-q'], { cwd });
    const env = {
      ...process.env,
      CLAUDE_CONFIG_DIR: join(home, 'config'),
      CLAUDE_CODE_TMPDIR: join(home, 'tmp'),
      HOME: home,
      ANTHROPIC_API_KEY: 'sk-ant-mock',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_MAX_RETRIES: '0',
    };
    // As a user would: the daemon's directories are the only thing the server entry carries.
    execFileSync(
      BIN as string,
      [
        'mcp',
        'add',
        'svc',
        '--scope',
        'user',
        '-e',
        `SVC_DATA_DIR=${dirs.dataDir}`,
        '-e',
        `SVC_CONFIG_DIR=${dirs.configDir}`,
        '--',
        process.execPath,
        SVC_BIN,
        'mcp',
        'stdio',
      ],
      { cwd, env, encoding: 'utf8' },
    );
    const claudeConfig = readFileSync(join(home, 'config', '.claude.json'), 'utf8');
    expect(claudeConfig).toContain('"mcp"');
    expect(claudeConfig).not.toContain(daemon.token);
    expect(claudeConfig).not.toContain(daemon.base);

    const run = async (turns: AnthropicTurn[]) => {
      mock = await startAnthropicMock(turns);
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(
          BIN as string,
          [
            '-p',
            '--output-format',
            'stream-json',
            '--verbose',
            '--permission-mode',
            'dontAsk',
            '--allowedTools',
            'mcp__svc',
          ],
          { cwd, env: { ...env, ANTHROPIC_BASE_URL: mock?.url }, stdio: ['pipe', 'pipe', 'pipe'] },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (b: Buffer) => {
          stdout += b.toString('utf8');
        });
        child.stderr.on('data', (b: Buffer) => {
          stderr += b.toString('utf8');
        });
        const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
        child.on('close', (code) => {
          clearTimeout(timer);
          if (code === 0) resolve(stdout);
          else reject(new Error(`claude exited ${code}: ${stderr}\n${stdout}`));
        });
        child.stdin.end('Use svc.');
      });
      const requests = mock?.requests.filter((q) => q.path.startsWith('/v1/messages')) ?? [];
      await mock?.close();
      mock = undefined;
      return { out, requests };
    };

    // Claude Code defers MCP tools and connects to servers while the model already runs: the
    // model fetches their schemas with ToolSearch, whose keyword form waits for a server that
    // is still connecting (`select:` would not).
    const search = (words: string): AnthropicTurn => ({
      kind: 'tool_use',
      name: 'ToolSearch',
      input: { query: `+svc ${words}`, max_results: 3 },
    });
    const first = await run([
      search('tasks create'),
      {
        kind: 'tool_use',
        name: 'mcp__svc__tasks_create',
        input: { project_id: project.id, title: 'from claude', paused: true },
      },
      { kind: 'text', text: 'created' },
    ]);
    expect(first.out).toContain('"result":"created"');
    // The schema the model was handed describes each field, from svc's zod schemas.
    const searched = JSON.stringify(first.requests[1]?.body);
    expect(searched).toContain('mcp__svc__tasks_create');
    expect(searched).toContain('goes in forge_pull');
    expect(searched).toContain('Create the task held in paused');
    // And the task came back to the model.
    expect(JSON.stringify(first.requests.at(-1)?.body)).toContain('from claude');
    const tasks = await daemon.json<Array<{ title: string; created_via: string }>>(
      'GET',
      '/v1/tasks',
    );
    expect(tasks).toMatchObject([{ title: 'from claude', created_via: 'mcp' }]);

    // Restarted, on another port: the same configuration still reaches it.
    const before = daemon.base;
    await daemon.stop();
    daemon = await startDaemon(dirs);
    expect(daemon.base).not.toBe(before);
    const second = await run([
      search('tasks list'),
      { kind: 'tool_use', name: 'mcp__svc__tasks_list', input: {} },
      { kind: 'text', text: 'listed' },
    ]);
    expect(second.out).toContain('"result":"listed"');
    expect(JSON.stringify(second.requests.at(-1)?.body)).toContain('from claude');
  }, 300_000);
});
