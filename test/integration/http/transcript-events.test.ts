// Issue 19 point 7 (decision 207): `GET …/transcript?format=events` answers an agent step's
// stored stream as the normalized events the live stream carries (text, tool calls and their
// results), keeps svc's own lines, and pages with the raw file's offsets.
import { describe, expect, it } from 'vitest';
import { agentConfig, agentWorkflow, stepRuns } from '../../support/agents.js';
import { buildTestApp } from '../../support/app.js';
import { addProject, createTask, waitState } from '../../support/tasks.js';

describe('transcripts as events', () => {
  it('normalizes an agent stream and keeps raw offsets', async () => {
    const t = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'success' }) });
    const { project } = await addProject(t, { one: agentWorkflow('one', { agent: 'claude' }) });
    const task = await createTask(t, { project_id: project.id, title: 'hello', workflow: 'one' });
    await waitState(t, task.id, 'done');
    const [run] = await stepRuns(t, task.id);
    const path = `/v1/tasks/${task.id}/steps/${run?.id}/transcript`;
    const raw = await t.api('GET', path);
    const events = await t.api('GET', `${path}?format=events`);
    expect(events.statusCode).toBe(200);
    expect(events.headers['x-next-offset']).toBe(raw.headers['x-next-offset']);
    const types = events.body
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types[0]).toBe('svc.step_started');
    expect(types).toEqual(
      expect.arrayContaining([
        'agent.output',
        'agent.tool_use',
        'agent.tool_result',
        'agent.result',
      ]),
    );
    // None of the CLI's own stream lines are left; svc's annotations are.
    expect(types.every((x) => x.startsWith('svc.') || x.startsWith('agent.'))).toBe(true);
    expect(raw.body).toContain('"type":"assistant"');
    expect(events.body).toContain('{"tools":[{"name":"Bash","summary":"echo fake"');

    const bad = await t.api('GET', `${path}?format=pretty`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details).toEqual({ field: 'format' });
  });
});
