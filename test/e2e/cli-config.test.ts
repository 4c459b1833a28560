// Issue 19 point 14: `svc config get` says when the file on disk was rejected (the values it prints
// are the last good ones, not the file's), a config error names its key once (`svc doctor` said
// `max_parallel_tasks: max_parallel_tasks: …`), and `svc trigger edit --set` takes a template as
// typed, with no yaml library warning on the terminal. The built CLI against a test daemon.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliDaemon, HAVE_BUILD, svcProc } from '../support/cli-proc.js';
import { addProject, commandWorkflow } from '../support/tasks.js';

// Each command is its own process; on a loaded machine one takes seconds.
const SLOW = 180_000;

describe.skipIf(!HAVE_BUILD)('svc config and trigger edits as a person types them', () => {
  it(
    'config get warns while the edit on disk is rejected, naming each key once',
    async () => {
      const { t, env } = await cliDaemon({ config: 'max_parallel_tasks: 2\n' });
      const config = t.kernel.services.config;

      const clean = await svcProc(env, ['config', 'get', 'max_parallel_tasks']);
      expect(clean).toMatchObject({ code: 0, out: '2', err: '' });

      writeFileSync(t.paths.configFile, 'max_parallel_tasks: 0\n');
      config.reloadFromFile(); // what the watcher calls on a change
      const r = await svcProc(env, ['config', 'get', 'max_parallel_tasks']);
      expect(r.code).toBe(0);
      expect(r.out).toBe('2');
      expect(r.err).toContain(`${t.paths.configFile} was edited, and the daemon rejected the edit`);
      expect(r.err).toContain('max_parallel_tasks: must be at least 1');
      expect(r.err).toContain('the values shown are the last good configuration, still in force');
      expect(r.err).not.toContain('max_parallel_tasks: max_parallel_tasks');

      const doctor = await svcProc(env, ['doctor']);
      expect(doctor.out).toContain('max_parallel_tasks: must be at least 1');
      expect(doctor.out).not.toContain('max_parallel_tasks: max_parallel_tasks');
      expect(doctor.out).toContain(`${t.paths.configFile} is not valid: max_parallel_tasks`);

      // A file YAML refuses says so once.
      writeFileSync(t.paths.configFile, 'max_parallel_tasks: 2\nmax_parallel_tasks: 3\n');
      const unparsed = await svcProc(env, ['doctor']);
      expect(unparsed.out).toContain(
        `${t.paths.configFile} does not parse: Map keys must be unique`,
      );
      expect(unparsed.out).not.toMatch(/does not parse: .*does not parse/);

      // Fixed on disk: in force, and nothing to warn about.
      writeFileSync(t.paths.configFile, 'max_parallel_tasks: 3\n');
      config.reloadFromFile();
      const fixed = await svcProc(env, ['config', 'get', 'max_parallel_tasks']);
      expect(fixed).toMatchObject({ code: 0, out: '3', err: '' });
    },
    SLOW,
  );

  it(
    'trigger and workflow edit --set take a template as text, without a library warning',
    async () => {
      const { t, env } = await cliDaemon();
      const { project } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
      const made = await svcProc(env, [
        'trigger',
        'new',
        'nightly',
        '--project',
        String(project.id),
      ]);
      expect(made.code).toBe(0);

      const r = await svcProc(env, [
        'trigger',
        'edit',
        'nightly',
        '--set',
        'action.title=Fix: {{.Event.id}}',
        '--set',
        'action.description={{.Event.id}}',
        '--set',
        'source.poll_interval=10m',
      ]);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const text = readFileSync(join(t.paths.triggersDir, 'nightly.yaml'), 'utf8');
      expect(text).toMatch(/^ {2}title: .*Fix: \{\{\.Event\.id\}\}/m);
      expect(text).toMatch(/^ {2}description: .*\{\{\.Event\.id\}\}/m);
      expect(text).toMatch(/^ {2}poll_interval: .*10m/m);
      const shown = await svcProc(env, ['trigger', 'show', 'nightly', '--json']);
      const def = JSON.parse(shown.out) as { definition?: { action?: Record<string, unknown> } };
      expect(JSON.stringify(def)).toContain('"title":"Fix: {{.Event.id}}"');

      // The same reading for a workflow's --set.
      const w = await svcProc(env, [
        'workflow',
        'edit',
        'ok',
        '--project',
        String(project.id),
        '--set',
        'steps[0].run=echo {{.Task.Title}}: done',
      ]);
      expect(w.err).toBe('');
      expect(w.code).toBe(0);
      const shownWf = await svcProc(env, [
        'workflow',
        'show',
        'ok',
        '--project',
        String(project.id),
      ]);
      expect(shownWf.out).toContain('echo {{.Task.Title}}: done');
    },
    SLOW,
  );
});
