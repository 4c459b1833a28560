// Issue 11 point 3: a corrupted config.yaml edit while the daemon runs (SPEC §2.10 "invalid edit
// while running: rejected and logged, last good config stays"). Where a schema-invalid value is
// covered by test/integration/config/config.test.ts ("hot reload"), this covers files that do not
// even parse: half-written, binary, the wrong YAML shape. Each one is logged, reported by the
// doctor as `config_unparseable`, never overwritten by PATCH /v1/config, and the daemon keeps
// running tasks under the last good configuration until the file is fixed.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DoctorReport } from '../../../kernel/ops/index.js';
import { buildTestApp } from '../../support/app.js';
import { addProject, commandWorkflow, createTask, waitState } from '../../support/tasks.js';

const GOOD = 'max_parallel_tasks: 2\ndefaults:\n  command_timeout: 10m\n';

const CORRUPTIONS: Array<[string, string | Buffer]> = [
  ['cut off mid-write', GOOD.slice(0, GOOD.indexOf('command_timeout') + 9)],
  ['an unclosed quote', 'max_parallel_tasks: 2\ndefaults:\n  command_timeout: "10m\n'],
  ['binary junk', Buffer.from([0x00, 0xff, 0x1b, 0x5b, 0x32, 0x4a, 0x0a, 0xfe, 0x00, 0x3a])],
  ['a list instead of a mapping', '- max_parallel_tasks\n- 2\n'],
  ['tabs for indentation', 'defaults:\n\tcommand_timeout: 10m\n'],
  ['a duplicated key', 'max_parallel_tasks: 2\nmax_parallel_tasks: 5\n'],
];

describe('a corrupted config.yaml edit', () => {
  it('is rejected and reported; the last good config stays in force and tasks keep running', async () => {
    const t = await buildTestApp({ config: GOOD });
    const config = t.kernel.services.config;
    const good = structuredClone(config.current());
    const { project } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
    const rejected = () =>
      readFileSync(t.paths.logFile, 'utf8')
        .split('\n')
        .filter((l) => l.includes('config edit rejected')).length;

    for (const [name, bytes] of CORRUPTIONS) {
      const before = rejected();
      writeFileSync(t.paths.configFile, bytes);
      config.reloadFromFile(); // what the watcher calls on a change
      expect(rejected(), name).toBe(before + 1);
      expect(config.current(), name).toEqual(good);
      expect(
        (await t.json<{ max_parallel_tasks: number }>('GET', '/v1/config')).max_parallel_tasks,
      ).toBe(2);

      const doctor = await t.json<DoctorReport>('GET', '/v1/doctor');
      expect(
        doctor.problems.map((p) => p.code),
        name,
      ).toContain('config_unparseable');

      // The user's broken edit is theirs to fix: an API edit refuses rather than overwrite it.
      const patch = await t.api(
        'PATCH',
        '/v1/config',
        { max_parallel_tasks: 3 },
        {
          'content-type': 'application/json',
        },
      );
      expect(patch.statusCode, name).toBe(400);
      expect(readFileSync(t.paths.configFile)).toEqual(Buffer.from(bytes));

      const task = await createTask(t, { project_id: project.id, title: name, workflow: 'ok' });
      await waitState(t, task.id, 'done');
    }

    writeFileSync(
      t.paths.configFile,
      GOOD.replace('max_parallel_tasks: 2', 'max_parallel_tasks: 4'),
    );
    config.reloadFromFile();
    expect(config.current().max_parallel_tasks).toBe(4);
    const doctor = await t.json<DoctorReport>('GET', '/v1/doctor');
    expect(doctor.problems.map((p) => p.code)).not.toContain('config_unparseable');
  });
});
