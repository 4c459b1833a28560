// Issue 18 point 6 (decision 197): a lane made by a `lane:` template sees its item as `.Loop.Item`
// (and `.Item`, `.Loop.Iteration`, `.Loop.Total`) in its own inline steps, not only in the lane's
// `if` and `fields`; a loop inside the lane still sees its own item.
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { addProject, createTask, waitState } from '../../support/tasks.js';

describe('.Loop.Item in a template lane’s steps', { timeout: 120_000 }, () => {
  it('each lane writes its own file, and a nested loop sees its own item', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, {
      items: `name: items
steps:
  - id: split
    type: fan_out
    lane:
      id: pkg
      for_each: [alpha, beta, gamma]
      fields:
        pkg: "{{.Loop.Item}}"
      steps:
        - id: write
          type: command
          run: echo "{{.Loop.Item}} {{.Item}} {{.Loop.Iteration}}/{{.Loop.Total}} {{.Task.Fields.pkg}}" > "lane-{{.Loop.Item}}.txt"
        - id: inner
          type: loop
          for_each: [x, y]
          steps:
            - id: note
              type: command
              run: echo "{{.Loop.Item}}" >> "lane-{{.Task.Fields.pkg}}.txt"
        - id: commit
          type: command
          run: git add -A && git commit -q -m "lane {{.Item}}"
`,
    });
    const task = await createTask(t, { project_id: project.id, title: 'I', workflow: 'items' });
    const done = await waitState(t, task.id, 'done', 60_000);
    const show = (f: string) => repo.git('show', `${done.branch_name}:${f}`);
    expect(show('lane-alpha.txt')).toBe('alpha alpha 1/3 alpha\nx\ny');
    expect(show('lane-beta.txt')).toBe('beta beta 2/3 beta\nx\ny');
    expect(show('lane-gamma.txt')).toBe('gamma gamma 3/3 gamma\nx\ny');
    expect(() => show('lane-.txt')).toThrow();
  });
});
