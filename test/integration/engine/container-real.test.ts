// The same containerized run against a real engine. No container engine runs on the CI machines,
// so this is opt-in: SVC_REAL_CONTAINER_RUNTIME=docker (or podman) and SVC_REAL_CONTAINER_IMAGE
// (default alpine:3) on a machine where `docker version` answers. See docs/containers.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { addProject, commandWorkflow, createTask, waitState } from '../../support/tasks.js';

const runtime = process.env.SVC_REAL_CONTAINER_RUNTIME;
const image = process.env.SVC_REAL_CONTAINER_IMAGE ?? 'alpine:3';

describe.skipIf(!runtime)('containerized steps on a real engine', () => {
  it('runs a command step inside the image with the worktree mounted at its host path', async () => {
    const t = await buildTestApp({
      config: `container:\n  image: ${image}\n  runtime: ${runtime}\n`,
    });
    const { project } = await addProject(t, {
      c: commandWorkflow('c', 'cat /etc/os-release > os.txt; echo "$HOME" > home.txt'),
    });
    const task = await createTask(t, { project_id: project.id, title: 'real', workflow: 'c' });
    const done = await waitState(t, task.id, 'done', 300_000);
    const wt = done.worktree_path as string;
    expect(readFileSync(join(wt, 'home.txt'), 'utf8').trim()).toBe('/svc-home');
    expect(readFileSync(join(wt, 'os.txt'), 'utf8').length).toBeGreaterThan(0);
  }, 320_000);
});
