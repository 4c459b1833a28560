// Issue 16 point 4: `tasks_diff` and `tasks_review` through /mcp with the SDK's own client — the
// same arguments and bounds as the routes, the diff as text.
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { call, connect, listen } from '../../support/mcp.js';
import { diffOf, gatedTask } from '../../support/review.js';
import { getTask } from '../../support/tasks.js';

async function mcpSession() {
  const t = await buildTestApp();
  const { task } = await gatedTask(t);
  const url = await listen(t);
  const { client } = await connect(`${url}/mcp`, t.token);
  return { t, task, client };
}

describe('review over MCP', () => {
  it('tasks_diff answers the route’s text, its stat and one file, with the route’s facts', async () => {
    const { t, task, client } = await mcpSession();
    const r = await client.callTool({ name: 'tasks_diff', arguments: { task_id: task.id } });
    const content = r.content as Array<{ type: string; text: string }>;
    expect(r.isError).toBeFalsy();
    expect(content[0]?.text).toBe((await diffOf(t, task.id)).body);
    expect(content[0]?.text).toContain('diff --git a/untracked.txt b/untracked.txt');
    expect(JSON.parse(content[1]?.text ?? '')).toEqual({ source: 'worktree', truncated: false });

    const stat = await call(client, 'tasks_diff', { task_id: task.id, stat: true });
    expect(stat.body).toEqual((await diffOf(t, task.id, '?stat=true')).json());
    const one = await client.callTool({
      name: 'tasks_diff',
      arguments: { task_id: task.id, path: 'README.md' },
    });
    expect((one.content as Array<{ text: string }>)[0]?.text).toMatch(
      /^diff --git a\/README.md b\/README.md\n[\s\S]*\+more\n$/,
    );
  });

  it('tasks_diff refuses as the route does', async () => {
    const { client, task } = await mcpSession();
    const gate = await call(client, 'tasks_steps', { task_id: task.id });
    const runs = (gate.body as { steps: Array<{ id: number; step_id: string }> }).steps;
    const check = runs.find((r) => r.step_id === 'check');
    const r = await call(client, 'tasks_diff', { task_id: task.id, run: check?.id });
    expect(r.isError).toBe(true);
    expect(r.body).toMatchObject({
      error: { code: 'invalid_state', details: { reason: 'no_heads' } },
    });
    const bad = await call(client, 'tasks_diff', { task_id: task.id, path: '../x' });
    expect(bad.body).toMatchObject({
      error: { code: 'validation_failed', details: { field: 'path' } },
    });
    expect((await call(client, 'tasks_diff', { task_id: 999 })).body).toMatchObject({
      error: { code: 'not_found' },
    });
  });

  it('tasks_review composes and sends a review', async () => {
    const { t, client, task } = await mcpSession();
    const dry = await call(client, 'tasks_review', {
      task_id: task.id,
      comments: [{ path: 'README.md', line: 2, body: 'Why?' }],
      dry_run: true,
    });
    expect(dry.body).toMatchObject({ review: { action: 'reject_repair' } });
    expect(String((dry.body.review as { prompt: string }).prompt)).toContain(
      '1. README.md:2: Why?',
    );
    expect((await getTask(t, task.id)).state).toBe('awaiting_gate');
    const sent = await call(client, 'tasks_review', { task_id: task.id, summary: 'Redo it.' });
    expect(sent.isError).toBe(false);
    expect(sent.body).toMatchObject({
      id: task.id,
      state: 'queued',
      review: { action: 'reject_repair' },
    });
  });
});
