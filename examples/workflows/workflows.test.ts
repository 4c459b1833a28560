// Issue 12 point 2: the sample workflows run. Each is copied, as a user would, into a project's
// .svc/workflows/ beside an npm package whose scripts stand in for a real project's, and run by a
// real daemon with real git; only the agent CLIs are faked (test/fixtures/fake-agents). The fake
// claude's `edit` scenario writes fake-edit.txt, and the package's tests pass once it exists, so
// "let an agent fix the failing tests" really depends on the agent's work.
// fan-out-refactor's lanes come from the listing agent's answer, which the fake claude's RESULT
// knob sets; the packages are npm workspaces whose tests pass.
import { chmodSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { agentConfig } from '../../test/support/agents.js';
import { buildTestApp, type TestApp } from '../../test/support/app.js';
import { gitRepo } from '../../test/support/git.js';
import { createTask, type StepJson, waitState } from '../../test/support/tasks.js';

const DIR = fileURLToPath(new URL('.', import.meta.url));

/** A project holding every sample workflow and a package whose tests need the agent's edit. */
async function sampleProject(t: TestApp) {
  const exists = (f: string) => `node -e "process.exit(require('fs').existsSync('${f}') ? 0 : 1)"`;
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify(
      {
        name: 'sample',
        version: '1.0.0',
        private: true,
        workspaces: ['packages/*'],
        scripts: {
          test: exists('fake-edit.txt'),
          lint: 'node -e ""',
          'test:unit': 'node -e ""',
          'test:integration': 'node -e "process.exit(process.env.CI === \'1\' ? 0 : 1)"',
        },
      },
      null,
      2,
    )}\n`,
    // `npx tsc` runs the project's own TypeScript; this stand-in keeps the test off the registry.
    'node_modules/.bin/tsc': '#!/bin/sh\nexit 0\n',
    'packages/pkg-a/package.json': `${JSON.stringify({ name: 'pkg-a', version: '1.0.0', scripts: { test: 'node -e ""' } })}\n`,
    'packages/pkg-b/package.json': `${JSON.stringify({ name: 'pkg-b', version: '1.0.0', scripts: { test: 'node -e ""' } })}\n`,
    'packages/docs/package.json': `${JSON.stringify({ name: 'docs', version: '1.0.0', scripts: { test: 'node -e ""' } })}\n`,
  };
  for (const f of readdirSync(DIR).filter((n) => n.endsWith('.yaml')))
    files[`.svc/workflows/${f}`] = readFileSync(join(DIR, f), 'utf8');
  const repo = gitRepo({ files });
  chmodSync(join(repo.path, 'node_modules/.bin/tsc'), 0o755);
  repo.commit('tsc stand-in is executable');
  const project = await t.json<{ id: number }>('POST', '/v1/projects', { path: repo.path });
  return { repo, project };
}

const runsOf = (t: TestApp, id: number) => t.json<StepJson[]>('GET', `/v1/tasks/${id}/steps`);
const summary = (runs: StepJson[]) => runs.map((r) => [r.step_id, r.state]);

describe('the sample workflows, run by a daemon with faked agent CLIs', () => {
  it('fix-and-test: the loop runs the tests, lets the agent fix them, and breaks when green', async () => {
    const t = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'edit' }) });
    const { project } = await sampleProject(t);
    const task = await createTask(t, {
      project_id: project.id,
      title: 'Make the tests pass',
      workflow: 'fix-and-test',
    });
    await waitState(t, task.id, 'done', 60_000);
    const runs = await runsOf(t, task.id);
    const inLoop = runs.filter((r) => r.step_id !== 'rounds' && r.step_id !== 'final');
    // Round 1: red, the break does not fire, the agent edits. Round 2: green, the break stops it.
    expect(inLoop.map((r) => [r.step_id, r.state, r.iteration])).toEqual([
      ['test', 'failed', 1],
      ['green', 'succeeded', 1],
      ['fix', 'succeeded', 1],
      ['test', 'succeeded', 2],
      ['green', 'stopped', 2],
    ]);
    expect(runs.find((r) => r.step_id === 'fix')?.agent).toBe('claude');
    expect(runs.find((r) => r.step_id === 'final')?.state).toBe('succeeded');
  });

  it('feature-with-review: two agents, the tests, a second agent’s review, then the human gate', async () => {
    const t = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'edit' }) });
    const { project } = await sampleProject(t);
    const refused = await t.api(
      'POST',
      '/v1/tasks',
      {
        project_id: project.id,
        title: 'Add login',
        workflow: 'feature-with-review',
        fields: { ticket: 'web-1' },
      },
      { 'content-type': 'application/json' },
    );
    expect(refused.statusCode).toBe(400);
    const task = await createTask(t, {
      project_id: project.id,
      title: 'Add login',
      workflow: 'feature-with-review',
      fields: { ticket: 'WEB-1', kind: 'bug' },
    });
    await waitState(t, task.id, 'awaiting_gate', 60_000);
    const runs = await runsOf(t, task.id);
    expect(summary(runs)).toEqual([
      ['plan', 'succeeded'],
      ['implement', 'succeeded'],
      ['test', 'succeeded'],
      ['review', 'succeeded'],
      ['approve', 'running'],
    ]);
    expect(runs.map((r) => r.agent)).toEqual(['claude', 'claude', null, 'codex', null]);
    const detail = await t.json<{
      gate?: { instructions?: string } | null;
      status_message: string;
    }>('GET', `/v1/tasks/${task.id}`);
    expect(JSON.stringify(detail)).toContain('Review WEB-1 on branch');
    await t.json('POST', `/v1/tasks/${task.id}/approve`);
    await waitState(t, task.id, 'done');
  });

  it('release: the version bump, the included shared tests in parallel, the changelog, the gate', async () => {
    const t = await buildTestApp({ config: agentConfig() });
    const { project } = await sampleProject(t);
    const task = await createTask(t, {
      project_id: project.id,
      title: 'Release',
      workflow: 'release',
      fields: { bump: 'minor' },
    });
    const gated = await waitState(t, task.id, 'awaiting_gate', 60_000);
    const runs = await runsOf(t, task.id);
    // shared-tests' steps stand in place of the include: its parallel group, then integration.
    // A group's members start together, so their rows may be written in any order (their
    // transcripts open off the event loop, decision 232): within the group, order by step id.
    const rows = runs.map((r) => [r.step_index, r.group_id ?? '-', r.step_id, r.state] as const);
    const key = (r: (typeof rows)[number], i: number) =>
      `${String(r[0]).padStart(4, '0')} ${r[1] === '-' ? String(i).padStart(4, '0') : r[2]}`;
    const sorted = rows
      .map((r, i) => ({ r, k: key(r, i) }))
      .sort((a, b) => a.k.localeCompare(b.k))
      .map((x) => x.r);
    expect(sorted).toEqual([
      [0, '-', 'bump', 'succeeded'],
      [1, 'checks', 'lint', 'succeeded'],
      [1, 'checks', 'types', 'succeeded'],
      [1, 'checks', 'unit', 'succeeded'],
      [2, '-', 'integration', 'succeeded'],
      [3, '-', 'changelog', 'succeeded'],
      [4, '-', 'tag', 'running'],
    ]);
    expect(runs.find((r) => r.step_id === 'changelog')?.agent).toBe('claude');
    const pkg = JSON.parse(readFileSync(join(String(gated.worktree_path), 'package.json'), 'utf8'));
    expect(pkg.version).toBe('1.1.0');
    await t.json('POST', `/v1/tasks/${task.id}/approve`);
    await waitState(t, task.id, 'done');
  });
  it('fan-out-refactor: a lane per listed package, merged back in order, docs lanes, shared tests', async () => {
    const t = await buildTestApp({
      config: agentConfig({ FAKE_CLAUDE_RESULT: 'pkg-a\npkg-b' }),
    });
    const { project } = await sampleProject(t);
    const task = await createTask(t, {
      project_id: project.id,
      title: 'Swap the date library',
      workflow: 'fan-out-refactor',
      fields: { refactoring: 'replace moment with date-fns' },
    });
    await waitState(t, task.id, 'done', 120_000);
    const runs = await runsOf(t, task.id);
    expect(runs.filter((r) => r.group_id === null).map((r) => [r.step_id, r.state])).toEqual([
      ['list', 'succeeded'],
      ['packages', 'succeeded'],
      ['docs', 'succeeded'],
      ['integration', 'succeeded'],
    ]);
    const detail = await t.json<{ children: { total: number; by_state: Record<string, number> } }>(
      'GET',
      `/v1/tasks/${task.id}`,
    );
    expect(detail.children).toMatchObject({ total: 4, by_state: { done: 4 } });
    const all = await t.json<Array<{ id: number; parent_task_id: number | null; lane_id: string }>>(
      'GET',
      '/v1/tasks?archived=all&include_children=true',
    );
    const lanes = all.filter((c) => c.parent_task_id === task.id).sort((x, y) => x.id - y.id);
    expect(lanes.map((c) => c.lane_id)).toEqual(['pkg-1', 'pkg-2', 'readme', 'migration-notes']);
    // Each package lane ran refactor-package with its package: the agent, then that package's tests.
    for (const [i, pkg] of ['pkg-a', 'pkg-b'].entries()) {
      const lane = lanes[i] as { id: number };
      const child = await t.json<{ fields: Record<string, string> }>('GET', `/v1/tasks/${lane.id}`);
      expect(child.fields.package).toBe(pkg);
      expect(summary(await runsOf(t, lane.id))).toEqual([
        ['change', 'succeeded'],
        ['test', 'succeeded'],
      ]);
    }
  });
});
