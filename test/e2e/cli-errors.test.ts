// Issue 19 point 6 (decision 203): the CLI says an API error as a sentence with the field and the
// fix, never raw JSON (`--json` keeps the envelope); the field of a missing workflow field is
// `fields.issue`, not `fields.fields.issue`; an archive refused for `worktree_dirty` names the
// worktree and the files.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliDaemon, HAVE_BUILD, svcProc } from '../support/cli-proc.js';
import { addProject, postTask, waitState } from '../support/tasks.js';

const FIX =
  'name: fix\nfields:\n  - name: issue\n    required: true\nsteps:\n  - id: run\n    type: command\n    run: "true"\n';

// Each command is its own process; on a loaded machine one takes seconds.
const SLOW = 180_000;

describe.skipIf(!HAVE_BUILD)('errors a person can act on', () => {
  it(
    'names the field and the option that gives it, and keeps the envelope for --json',
    async () => {
      const { t, env } = await cliDaemon();
      const { repo, project } = await addProject(t, { fix: FIX }, { name: 'demo' });
      const api = await postTask(t, { project_id: project.id, title: 'x', workflow: 'fix' });
      expect(api.statusCode).toBe(400);
      expect(api.json().error.details).toEqual({ field: 'fields.issue' });

      const args = ['task', 'create', '--title', 'x', '--workflow', 'fix'];
      const r = await svcProc(env, args, { cwd: repo.path });
      expect(r.code).toBe(6);
      expect(r.err).toBe('svc: field "issue" is required: give it with --field issue=<value>');
      const json = await svcProc(env, [...args, '--json'], { cwd: repo.path });
      expect(json.code).toBe(6);
      expect(JSON.parse(json.err)).toEqual({
        error: {
          code: 'validation_failed',
          message: 'field "issue" is required',
          details: { field: 'fields.issue' },
        },
      });

      const base = await svcProc(env, [...args, '--field', 'issue=1', '--base', 'nope'], {
        cwd: repo.path,
      });
      expect(base.code).toBe(6);
      expect(base.err).toMatch(/^svc: base_branch nope .*: give another with --base <branch>$/);

      const done = await svcProc(env, [...args, '--field', 'issue=1', '--json'], {
        cwd: repo.path,
      });
      const id = (JSON.parse(done.out) as { id: number }).id;
      await waitState(t, id, 'done');
      const refused = await svcProc(env, ['task', 'approve', String(id)]);
      expect(refused.code).toBe(5);
      expect(refused.err).toBe(`svc: cannot approve a task that is done`);
      for (const e of [r.err, base.err, refused.err]) expect(e).not.toMatch(/[{}]/);
    },
    SLOW,
  );

  it(
    'an archive refused for uncommitted changes names the worktree and the files',
    async () => {
      const { t, env } = await cliDaemon();
      const { project } = await addProject(t, { fix: FIX }, { name: 'demo' });
      const task = (
        await postTask(t, {
          project_id: project.id,
          title: 'x',
          workflow: 'fix',
          fields: { issue: '1' },
        })
      ).json() as { id: number };
      const done = await waitState(t, task.id, 'done');
      const wt = String(done.worktree_path);
      writeFileSync(join(wt, 'README.md'), 'changed\n');
      writeFileSync(join(wt, 'notes.md'), 'new\n');
      const r = await svcProc(env, ['task', 'archive', String(task.id)]);
      expect(r.code).toBe(5);
      expect(r.err.split('\n')).toEqual([
        `svc: the worktree of task ${task.id} (${wt}) has uncommitted changes in 2 files; commit them or archive with force`,
        '     M README.md',
        '    ?? notes.md',
      ]);
    },
    SLOW,
  );
});
