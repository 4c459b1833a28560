// Issue 18 point 7 (decision 198): the create body's `prompt` reaches the agent — adhoc gives it
// title, description and prompt; a workflow that never reads `.Task.Prompt` gets it at the top of
// its first agent step; a chat hand-off's prompt opens the new task's first agent step; a workflow
// with no use for it says so in `warnings[]`; the task view and the MCP tool show the field.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig, agentWorkflow, prompts } from '../../support/agents.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { createChat } from '../../support/chats.js';
import { connect, listen } from '../../support/mcp.js';
import {
  addProject,
  commandWorkflow,
  createTask,
  getTask,
  type TaskJson,
  waitState,
} from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

const THE_PROMPT = 'THE REAL PROMPT: rename {{.Task.ID}} literally';

async function world() {
  const log = join(tempDir(), 'claude.jsonl');
  const t = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_RECORD: log }) });
  const { project } = await addProject(t, {
    custom: agentWorkflow('custom', { prompt: 'Step one for {{.Task.Title}}' }),
    placed: agentWorkflow('placed', { prompt: 'Before. {{.Task.Prompt}} After.' }),
    twice: `name: twice\nsteps:\n  - id: one\n    type: agent\n    prompt: first\n  - id: two\n    type: agent\n    prompt: second\n`,
    shell: commandWorkflow('shell', 'true'),
  });
  return { t, log, project };
}

describe('a task’s prompt', { timeout: 120_000 }, () => {
  it('adhoc gives the agent the title, the description and the prompt; the view shows it', async () => {
    const { t, log, project } = await world();
    const created = await createTask(t, {
      project_id: project.id,
      title: 'Rename the flag',
      description: 'It is called x.',
      prompt: THE_PROMPT,
    });
    expect(created.prompt).toBe(THE_PROMPT);
    expect(created.warnings).toEqual([]);
    await waitState(t, created.id, 'done');
    const [sent] = prompts(log);
    expect(sent).toContain('Task: Rename the flag\n\nIt is called x.\n\nTHE REAL PROMPT');
    // The user's words are data, never a template.
    expect(sent).toContain('rename {{.Task.ID}} literally');
    expect((await getTask(t, created.id)).prompt).toBe(THE_PROMPT);
    const rows = await t.json<TaskJson[]>('GET', '/v1/tasks');
    expect(rows[0]).not.toHaveProperty('prompt');
  });

  it('opens the first agent step of a workflow that does not read it, and only that step', async () => {
    const { t, log, project } = await world();
    const task = await createTask(t, {
      project_id: project.id,
      title: 'T',
      workflow: 'twice',
      prompt: THE_PROMPT,
    });
    expect(task.warnings).toEqual([]);
    await waitState(t, task.id, 'done');
    expect(prompts(log)).toEqual([`${THE_PROMPT}\n\nfirst`, 'second']);
  });

  it('leaves a workflow that places it alone', async () => {
    const { t, log, project } = await world();
    const task = await createTask(t, {
      project_id: project.id,
      title: 'T',
      workflow: 'placed',
      prompt: 'MINE',
    });
    await waitState(t, task.id, 'done');
    expect(prompts(log)).toEqual(['Before. MINE After.']);
  });

  it('a workflow with no use for it says so in warnings[]', async () => {
    const { t, project } = await world();
    const task = await createTask(t, {
      project_id: project.id,
      title: 'T',
      workflow: 'shell',
      prompt: THE_PROMPT,
    });
    expect(task.warnings).toEqual([expect.stringMatching(/^prompt is not used: workflow shell/)]);
    const quiet = await createTask(t, { project_id: project.id, title: 'T', workflow: 'shell' });
    expect(quiet.warnings).toEqual([]);
  });

  it('a chat hand-off’s prompt opens the new task’s first agent step', async () => {
    const { t, log, project } = await world();
    const chat = await createChat(t, { project_id: project.id, title: 'Prototype' });
    const res = await t.api(
      'POST',
      `/v1/chats/${chat.id}/handoff`,
      { workflow: 'custom', prompt: 'Finish what we started in the chat.' },
      { 'content-type': 'application/json' },
    );
    expect(res.statusCode, res.body).toBe(201);
    const task = res.json().task as TaskJson;
    expect(task.prompt).toBe('Finish what we started in the chat.');
    await waitState(t, task.id, 'done');
    expect(prompts(log)).toEqual(['Finish what we started in the chat.\n\nStep one for Prototype']);
  });

  it('the MCP tasks_create tool describes the field', async () => {
    const { t } = await world();
    const { client } = await connect(`${await listen(t as TestApp)}/mcp`, t.token);
    const { tools } = await client.listTools();
    const create = tools.find((x) => x.name === 'tasks_create');
    const properties = (create?.inputSchema.properties ?? {}) as Record<
      string,
      { description?: string }
    >;
    const prompt = properties.prompt;
    expect(prompt?.description).toContain('{{.Task.Prompt}}');
  });
});
