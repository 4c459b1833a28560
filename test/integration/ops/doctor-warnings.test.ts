// Issue 19 point 2 (decision 201): `svc doctor` tells the whole truth. With no agent CLI usable and
// a configured agent path that does not exist, `GET /v1/doctor` carries both in `warnings[]` (never
// in the closed `problems[]`, so the exit status stays 0) and `svc doctor` prints them in their own
// section; `svc config set agents.<name>.path` warns about a path that cannot run; `svc agents`
// shows a configured path even when it is missing, and says why a CLI's option probe failed only
// with --verbose.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../cli/exit-codes.js';
import type { DoctorReport } from '../../../kernel/ops/index.js';
import { cli } from '../../support/cli.js';
import { daemonEnv, startDaemon } from '../../support/daemon.js';
import { tempDir } from '../../support/tmp.js';

/** A daemon whose environment policy's PATH holds `bin` only, with `config` in config.yaml. */
async function daemonWith(config: string, bin: string) {
  const env = daemonEnv();
  mkdirSync(env.SVC_CONFIG_DIR, { recursive: true });
  writeFileSync(
    join(env.SVC_CONFIG_DIR, 'config.yaml'),
    `environment:\n  set:\n    PATH: ${JSON.stringify(bin)}\n${config}`,
  );
  await startDaemon(env);
  return env;
}

/** A `claude` that answers its version and login but not the model list (a real CLI of 2026). */
function terseClaude(dir: string): string {
  const file = join(dir, 'claude');
  writeFileSync(
    file,
    '#!/bin/sh\ncase "$1" in\n  --version) echo "2.1.330 (Claude Code)";;\n  auth) echo \'{"loggedIn":true}\';;\n  *) exit 0;;\nesac\n',
  );
  chmodSync(file, 0o755);
  return file;
}

describe('doctor warnings', () => {
  it('names a missing configured path and that no agent is usable, without making them problems', async () => {
    const empty = tempDir();
    const env = await daemonWith('agents:\n  claude:\n    path: /nowhere/claude\n', empty);
    const json = await cli(env, 'doctor', '--json', '--cached');
    expect(json.code).toBe(EXIT.ok);
    const report = JSON.parse(json.out) as DoctorReport;
    expect(report.problems).toEqual([]);
    expect(report.warnings).toEqual([
      expect.objectContaining({
        code: 'agent_path_missing',
        key: 'agents.claude.path',
        path: '/nowhere/claude',
      }),
      expect.objectContaining({ code: 'no_usable_agent', group: 'agents' }),
    ]);

    const human = await cli(env, 'doctor', '--cached');
    expect(human.code).toBe(EXIT.ok);
    const lines = human.out.split('\n');
    const at = lines.indexOf('Warnings (2):');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(
      /^ {2}- \[agent_path_missing\] agents\.claude\.path is \/nowhere\/claude, which does not exist/,
    );
    expect(lines[at + 2]).toMatch(
      /^ {2}- \[no_usable_agent\] no agent is usable \(claude not installed, codex not installed, cursor not installed\)/,
    );
    expect(lines.at(-1)).toBe('No problems.');
  });

  it('svc config set warns about an agent path that cannot run; svc agents shows it anyway', async () => {
    const empty = tempDir();
    const env = await daemonWith('', empty);
    const missing = await cli(env, 'config', 'set', 'agents.codex.path', '/nowhere/codex');
    expect(missing.code).toBe(EXIT.ok);
    expect(missing.out).toBe('/nowhere/codex');
    expect(missing.err).toBe(
      'warning: agents.codex.path is /nowhere/codex, which does not exist; codex steps will fail agent_unavailable',
    );
    const text = join(tempDir(), 'codex.txt');
    writeFileSync(text, 'not a program');
    const notExec = await cli(env, 'config', 'set', 'agents.codex.path', text);
    expect(notExec.err).toContain(`which is not an executable file`);
    const fine = await cli(env, 'config', 'set', 'agents.claude.path', terseClaude(tempDir()));
    expect(fine.err).toBe('');

    const agents = await cli(env, 'agents');
    expect(agents.out).toMatch(/codex\s+missing\s.*\s\S*codex\.txt \(not executable\)$/m);
    // The model list the terse CLI did not give is detail: only --verbose says so.
    expect(agents.err).toBe('');
    const verbose = await cli(env, 'agents', '--verbose');
    expect(verbose.err).toMatch(
      /^claude: list_models: exited 0 \(serving the curated catalogue\)$/,
    );
  });
});
