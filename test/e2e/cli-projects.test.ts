// Issue 19 point 5 (decision 203): every --project takes a name as well as an id, and a command
// that needs a project defaults to the registered project whose folder holds the current
// directory (or the task whose worktree it is); with none, the error names the registered ones.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliDaemon, HAVE_BUILD, svcProc } from '../support/cli-proc.js';
import { addProject, commandWorkflow, waitState } from '../support/tasks.js';
import { tempDir } from '../support/tmp.js';

const WORKFLOWS = { quick: commandWorkflow('quick', 'true') };

// Each command is its own process; on a loaded machine one takes seconds.
const SLOW = 180_000;

describe.skipIf(!HAVE_BUILD)('projects by name and by place', () => {
  it(
    'creates tasks on the project named, or the one the current directory is in',
    async () => {
      const { t, env } = await cliDaemon();
      const api = await addProject(t, WORKFLOWS, { name: 'api' });
      const web = await addProject(t, WORKFLOWS, { name: 'web' });
      const create = (cwd: string, ...more: string[]) =>
        svcProc(env, ['task', 'create', '--title', 'x', '--workflow', 'quick', '--json', ...more], {
          cwd,
        });
      const projectOf = async (r: { code: number | null; out: string; err: string }) => {
        expect(r.err).toBe('');
        expect(r.code).toBe(0);
        return (JSON.parse(r.out) as { project_id: number }).project_id;
      };

      const sub = join(api.repo.path, 'src', 'deep');
      mkdirSync(sub, { recursive: true });
      expect(await projectOf(await create(sub))).toBe(api.project.id);
      expect(await projectOf(await create(web.repo.path))).toBe(web.project.id);
      const elsewhere = tempDir();
      expect(await projectOf(await create(elsewhere, '--project', 'web'))).toBe(web.project.id);
      expect(await projectOf(await create(elsewhere, '--project', String(api.project.id)))).toBe(
        api.project.id,
      );

      // Inside a task's worktree, the task's project.
      const made = await create(web.repo.path);
      const done = await waitState(t, (JSON.parse(made.out) as { id: number }).id, 'done');
      expect(done.worktree_path).toBeTruthy();
      expect(await projectOf(await create(String(done.worktree_path)))).toBe(web.project.id);

      const none = await create(elsewhere);
      expect(none.code).toBe(2);
      expect(none.err).toContain(`no --project given and ${elsewhere} is in no registered project`);
      expect(none.err).toContain(
        `registered: ${api.project.id} api (${api.repo.path}), ${web.project.id} web (${web.repo.path})`,
      );
      const unknown = await create(elsewhere, '--project', 'nope');
      expect(unknown.code).toBe(2);
      expect(unknown.err).toContain('--project nope: no project has that id or name; registered:');

      const list = await svcProc(env, ['task', 'list', '--project', 'api', '--json'], {
        cwd: elsewhere,
      });
      const rows = JSON.parse(list.out) as Array<{ project_id: number }>;
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.project_id === api.project.id)).toBe(true);
    },
    SLOW,
  );

  it(
    'shows and edits the project by name or by place',
    async () => {
      const { t, env } = await cliDaemon();
      const web = await addProject(t, WORKFLOWS, { name: 'web' });
      const here = await svcProc(env, ['project', 'show'], { cwd: web.repo.path });
      expect(here.out).toContain(`project ${web.project.id}: web`);
      const byName = await svcProc(env, [
        'project',
        'edit',
        'web',
        '--max-parallel',
        '2',
        '--json',
      ]);
      expect(JSON.parse(byName.out).max_parallel_tasks).toBe(2);
      const wf = await svcProc(env, ['workflow', 'list', '--project', 'web']);
      expect(wf.out).toMatch(/^quick\s+project\s/m);
      const rm = await svcProc(env, ['project', 'rm'], { cwd: web.repo.path });
      expect(rm.code).toBe(2);
      expect(rm.err).toContain('name the project to delete');
    },
    SLOW,
  );
});
