// Issue 16 point 5: POST /v1/tasks/{id}/review — line comments with the hunks they point into,
// composed into one prompt: a follow-up of a done task, or at a gate a reject then a repair in one
// action; the prompt reaches the agent CLI (faked).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig, prompts, stepRuns } from '../../support/agents.js';
import { buildTestApp } from '../../support/app.js';
import { gatedTask, gateWorkflow } from '../../support/review.js';
import { act, addProject, createTask, getTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

async function review(t: Awaited<ReturnType<typeof buildTestApp>>, id: number, body: unknown) {
  return t.api('POST', `/v1/tasks/${id}/review`, body, { 'content-type': 'application/json' });
}

describe('a review', () => {
  it('at a gate rejects, then repairs with the comments and their hunks, in one action', async () => {
    const log = join(tempDir(), 'rec.jsonl');
    const t = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_RECORD: log }) });
    const { task } = await gatedTask(t);
    const res = await review(t, task.id, {
      summary: 'Good start; two things.',
      comments: [
        { path: 'untracked.txt', line: 1, body: 'Name this file for what it holds.' },
        { path: 'README.md', line: 2, body: 'Say more than "more".' },
        { path: 'keep.txt', line: 2, side: 'old', body: 'Why move this file?' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as {
      id: number;
      state: string;
      warnings: string[];
      review: { action: string; prompt: string };
    };
    expect(body).toMatchObject({ id: task.id, state: 'queued', warnings: [] });
    expect(body.review.action).toBe('reject_repair');
    const prompt = body.review.prompt;
    expect(prompt).toContain(`task ${task.id} "Work"`);
    expect(prompt).toContain('Good start; two things.');
    expect(prompt).toContain('Line comments (3).');
    // In the diff's file order, each with the part of its hunk, headed by a recomputed @@ line.
    expect(prompt).toContain(
      '1. README.md:2: Say more than "more".\n```diff\n@@ -1 +1,2 @@\n # test repo\n+more\n```',
    );
    expect(prompt).toContain('2. keep.txt:2 (old): Why move this file?\n(line 2 is outside');
    expect(prompt).toContain(
      '3. untracked.txt:1: Name this file for what it holds.\n```diff\n@@ -0,0 +1 @@\n+brand-new\n```',
    );

    // The gate was rejected and the repair agent got the composed prompt after the context; a
    // repair returns to blocked at the gate, as any repair does.
    const after = await waitState(t, task.id, 'blocked');
    expect(after).toMatchObject({ block_reason: 'rejected', block_detail: 'rejected at check' });
    expect((await stepRuns(t, task.id)).map((r) => [r.step_id, r.state])).toEqual([
      ['change', 'succeeded'],
      ['check', 'rejected'],
      ['__repair', 'succeeded'],
    ]);
    const [sent] = prompts(log);
    expect(sent).toContain('Reason: rejected — rejected at check');
    expect(sent?.endsWith(prompt)).toBe(true);

    // The next round of the same review is a repair; a retry then puts the gate back.
    const again = await review(t, task.id, { summary: 'Closer. Now the README.' });
    expect(again.json()).toMatchObject({ state: 'queued', review: { action: 'repair' } });
    await waitState(t, task.id, 'blocked');
    expect(prompts(log)[1]).toContain('Closer. Now the README.');
    expect((await act(t, task.id, 'retry', {})).statusCode).toBe(200);
    await waitState(t, task.id, 'awaiting_gate');
  });

  it('of a done task is a follow-up whose prompt reaches the agent', async () => {
    const log = join(tempDir(), 'rec.jsonl');
    const t = await buildTestApp({ config: agentConfig({ FAKE_CLAUDE_RECORD: log }) });
    const { project } = await addProject(t, {
      once: 'name: once\nsteps:\n  - id: write\n    type: command\n    run: printf "one\\ntwo\\n" > out.txt\n',
    });
    const task = await createTask(t, { project_id: project.id, title: 'Once', workflow: 'once' });
    await waitState(t, task.id, 'done');
    const res = await review(t, task.id, {
      comments: [{ path: 'out.txt', line: 2, body: 'two should be three' }],
      agent: 'claude',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ state: 'queued', review: { action: 'follow_up' } });
    await waitState(t, task.id, 'done');
    const [sent] = prompts(log);
    expect(sent).toContain(
      '1. out.txt:2: two should be three\n```diff\n@@ -0,0 +1,2 @@\n+one\n+two\n```',
    );
    expect((await stepRuns(t, task.id)).map((r) => [r.step_id, r.follow_up])).toEqual([
      ['write', false],
      ['follow-up-1', true],
    ]);
  });

  it('as a dry run composes the prompt and changes nothing', async () => {
    const t = await buildTestApp();
    const { task } = await gatedTask(t);
    const res = await review(t, task.id, { summary: 'Just the summary', dry_run: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      review: {
        action: 'reject_repair',
        prompt: expect.stringContaining('\n\nJust the summary'),
      },
    });
    expect((await getTask(t, task.id)).state).toBe('awaiting_gate');
    expect(await stepRuns(t, task.id)).toHaveLength(2);
  });

  it('refuses what it cannot send, naming the field', async () => {
    const t = await buildTestApp();
    const { task } = await gatedTask(t);
    for (const [body, field] of [
      [{}, 'comments'],
      [{ summary: '   ' }, 'comments'],
      [{ comments: [{ path: 'nowhere.txt', line: 1, body: 'x' }] }, 'comments[0].path'],
      [{ comments: [{ path: 'README.md', line: 0, body: 'x' }] }, 'comments[0].line'],
      [{ comments: [{ path: 'README.md', line: 1, body: ' ' }] }, 'comments[0].body'],
      [{ comments: [{ path: '../x', line: 1, body: 'x' }] }, 'comments[0].path'],
      [{ comments: [{ path: 'README.md', line: 1, body: 'x', side: 'left' }] }, 'comments[0].side'],
      [{ summary: 'x'.repeat(64 * 1024 + 1) }, 'summary'],
      [{ summary: 'x', colour: 'red' }, 'colour'],
    ] as const) {
      const res = await review(t, task.id, body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json(), JSON.stringify(body).slice(0, 80)).toMatchObject({
        error: { code: 'validation_failed', details: { field } },
      });
    }
    const many = Array.from({ length: 201 }, () => ({ path: 'README.md', line: 1, body: 'x' }));
    expect((await review(t, task.id, { comments: many })).json()).toMatchObject({
      error: { code: 'validation_failed', details: { field: 'comments' } },
    });
    expect((await getTask(t, task.id)).state).toBe('awaiting_gate');
    expect((await review(t, 999, { summary: 'x' })).statusCode).toBe(404);
  });

  it('goes only to a done, aborted or blocked task or one at a gate', async () => {
    const t = await buildTestApp();
    const { project, repo } = await addProject(t, { work: gateWorkflow('work', 'echo x > x.txt') });
    repo.commit('x', { 'README.md': 'hi\n' });
    const held = await createTask(t, {
      project_id: project.id,
      title: 'Held',
      workflow: 'work',
      paused: true,
    });
    const res = await review(t, held.id, { summary: 'x' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      error: { code: 'invalid_state', details: { state: 'paused' } },
    });
    expect((await act(t, held.id, 'cancel')).statusCode).toBe(200);
    // Aborted before it ever had a worktree: nothing for an agent to work in.
    expect((await review(t, held.id, { summary: 'x' })).json()).toMatchObject({
      error: { code: 'invalid_state', details: { reason: 'no_worktree' } },
    });
  });
});
