// Issue 11 point 3: an agent binary that vanishes after the daemon found it (uninstalled, or an
// upgrade mid-swap). The step must not trust what the probe saw: it fails `agent_unavailable`
// without spawning and without retrying, the task blocks with that reason, the earlier steps and
// their rows and files stay, and once the binary is back `retry` runs the step.
import { existsSync, mkdirSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig, FAKE_BINARIES, stepRuns } from '../../support/agents.js';
import { buildTestApp } from '../../support/app.js';
import { act, addProject, createTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

describe('an agent binary that vanishes after it was found', () => {
  it('fails the step agent_unavailable, blocks the task, keeps what ran; retry runs it once back', async () => {
    const bin = join(tempDir(), 'bin');
    mkdirSync(bin);
    const claude = join(bin, 'claude');
    symlinkSync(FAKE_BINARIES.claude, claude);
    const t = await buildTestApp({ config: agentConfig({}, '', { claude }) });
    const { project } = await addProject(t, {
      two: `name: two
steps:
  - id: prepare
    type: command
    run: "echo ready > ready.txt"
  - id: work
    type: agent
    agent: claude
    max_retries: 0
    prompt: "Do it"
`,
    });
    const agents = await t.json<{ agents: Array<{ name: string; available: boolean }> }>(
      'GET',
      '/v1/agents',
    );
    expect(agents.agents.find((a) => a.name === 'claude')?.available).toBe(true);

    unlinkSync(claude);
    const task = await createTask(t, { project_id: project.id, title: 'vanish', workflow: 'two' });
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('agent_unavailable');
    const rows = await stepRuns(t, task.id);
    expect(rows.map((r) => [r.step_id, r.state, r.failure_reason, r.exit_code])).toEqual([
      ['prepare', 'succeeded', null, 0],
      ['work', 'failed', 'agent_unavailable', null],
    ]);
    expect(existsSync(join(blocked.worktree_path as string, 'ready.txt'))).toBe(true);

    symlinkSync(FAKE_BINARIES.claude, claude);
    expect((await act(t, task.id, 'retry', {})).statusCode).toBe(200);
    const done = await waitState(t, task.id, 'done');
    expect(done.steps?.map((s) => [s.step_id, s.state])).toEqual([
      ['prepare', 'succeeded'],
      ['work', 'failed'],
      ['work', 'succeeded'],
    ]);
  });
});
