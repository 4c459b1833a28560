// Issue 7 point 2: turns (SPEC §3.3, §4.5). Each send resumes the agent's own session with the
// adapter's resume argv (asserted on what the fake CLIs received), runs in the chat's worktree
// under max_parallel_chats (409 chat_cap_reached, never queued) and defaults.agent_timeout on the
// daemon clock; a claude question parks the chat in awaiting_input until answered; cancel stops
// the live turn and leaves the chat idle (decision 161); each turn has its own transcript; the
// chat's SSE stream carries its events and live output.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../kernel/clock/index.js';
import { agentConfig, type FakeAgent, records } from '../../support/agents.js';
import { buildTestApp, waitFor } from '../../support/app.js';
import {
  chatDetail,
  createChat,
  send,
  turnTranscript,
  waitChatState,
  waitTurn,
} from '../../support/chats.js';
import { openSse } from '../../support/sse.js';
import { addProject } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

async function setup(knobs: Record<string, string> = {}, extra = '') {
  const record = join(tempDir(), 'record.jsonl');
  const t = await buildTestApp({
    config: agentConfig({ FAKE_AGENT_RECORD: record, ...knobs }, extra),
  });
  const { project, repo } = await addProject(t);
  return { t, project, repo, record };
}

/** Runs, not probes: probes run in the data directory and the version probe takes `--version`. */
const starts = (file: string) =>
  records(file).filter(
    (r) =>
      r.event === 'start' &&
      !String(r.cwd).endsWith('/data') &&
      !(r.argv as string[]).includes('--version'),
  );

const RESUME: Record<FakeAgent, (session: string) => string[]> = {
  claude: (s) => ['--resume', s],
  codex: (s) => ['resume', s, '-'],
  cursor: (s) => ['--resume', s],
};

describe('a turn', () => {
  for (const agent of ['claude', 'codex', 'cursor'] as const) {
    it(`resumes ${agent}'s own session on every turn after the first, in the chat's worktree`, async () => {
      const { t, project, record } = await setup();
      const chat = await createChat(t, { project_id: project.id, title: 'talk', agent });
      const res = await send(t, chat.id, 'hello there');
      expect(res.statusCode).toBe(202);
      expect(res.json()).toMatchObject({
        chat: { state: 'running' },
        turn: { seq: 1, state: 'running' },
      });
      const one = await waitTurn(t, chat.id, 1);
      expect(one.turns[0]).toMatchObject({ seq: 1, state: 'succeeded', message: 'hello there' });
      const session = one.chat.session_id as string;
      expect(session).toEqual(expect.any(String));
      expect(one.chat.state).toBe('idle');

      expect((await send(t, chat.id, 'and again')).statusCode).toBe(202);
      const two = await waitTurn(t, chat.id, 2);
      expect(two.turns[1]).toMatchObject({ seq: 2, state: 'succeeded', session_id: session });
      expect(two.turns[1]?.result_text).toContain(`resumed ${session}`);

      const [first, second] = starts(record);
      expect(first?.cwd).toBe(chat.worktree_path);
      const argv1 = first?.argv as string[];
      const argv2 = second?.argv as string[];
      expect(argv1.join(' ')).not.toContain(session);
      const want = RESUME[agent](session);
      const at = argv2.indexOf(want[0] as string);
      expect(argv2.slice(at, at + want.length)).toEqual(want);
      // A chat of its own carries no context block: the human's words are the prompt.
      const stdin = records(record)
        .filter((r) => r.event === 'stdin')
        .map((r) => String(r.data))
        .join('\n');
      expect(stdin).toContain('hello there');
      expect(stdin).not.toContain('This conversation is about task');
    });
  }

  it('refuses a send while a turn is live: 409 invalid_state with the state', async () => {
    const { t, project } = await setup({ FAKE_CLAUDE_SCENARIO: 'hang' });
    const chat = await createChat(t, { project_id: project.id, title: 'x' });
    await send(t, chat.id, 'one');
    const res = await send(t, chat.id, 'two');
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'invalid_state',
      details: { state: 'running' },
    });
    expect((await chatDetail(t, chat.id)).turns).toHaveLength(1);
    await t.api('POST', `/v1/chats/${chat.id}/cancel`);
  });

  it('validates the body: a blank or missing message is 400', async () => {
    const { t, project } = await setup();
    const chat = await createChat(t, { project_id: project.id, title: 'x' });
    for (const body of [{}, { message: '  ' }, { message: 'x', extra: 1 }]) {
      const res = await t.api('POST', `/v1/chats/${chat.id}/send`, body, {
        'content-type': 'application/json',
      });
      expect(res.statusCode).toBe(400);
    }
    expect((await chatDetail(t, chat.id)).turns).toEqual([]);
  });
});

describe('max_parallel_chats', () => {
  it('refuses a turn over the cap with 409 chat_cap_reached and details.state; never queues', async () => {
    const { t, project } = await setup({ FAKE_CLAUDE_SCENARIO: 'hang' }, 'max_parallel_chats: 1\n');
    const a = await createChat(t, { project_id: project.id, title: 'a' });
    const b = await createChat(t, { project_id: project.id, title: 'b', agent: 'codex' });
    expect((await send(t, a.id, 'go')).statusCode).toBe(202);
    const res = await send(t, b.id, 'me too');
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'chat_cap_reached',
      details: { state: 'idle' },
    });
    // Nothing was written and nothing waits: b stays idle with no turn even after a finishes.
    expect(await chatDetail(t, b.id)).toMatchObject({ chat: { state: 'idle' }, turns: [] });
    const cancelled = await t.json<{ state: string }>('POST', `/v1/chats/${a.id}/cancel`);
    expect(cancelled.state).toBe('idle');
    await new Promise((r) => setTimeout(r, 200));
    expect((await chatDetail(t, b.id)).turns).toEqual([]);
    // The cap counts chats only: the info route reports the slot free again.
    expect((await send(t, b.id, 'now')).statusCode).toBe(202);
    expect((await waitTurn(t, b.id, 1)).turns[0]?.state).toBe('succeeded');
  });
});

describe('agent_timeout', () => {
  it('ends a turn that outlives defaults.agent_timeout on the daemon clock, failed timeout', async () => {
    const { t, project } = await setup(
      { FAKE_CLAUDE_SCENARIO: 'hang' },
      'defaults:\n  agent_timeout: 2m\n',
    );
    const chat = await createChat(t, { project_id: project.id, title: 'slow' });
    await send(t, chat.id, 'wait forever');
    await waitFor(async () => {
      const r = await t.api('GET', `/v1/chats/${chat.id}/turns/1/transcript`);
      return r.statusCode === 200 && r.body.includes('command_started');
    });
    await (t.clock as FakeClock).advance('119s');
    expect((await chatDetail(t, chat.id)).chat.state).toBe('running');
    await (t.clock as FakeClock).advance('1s');
    const d = await waitTurn(t, chat.id, 1);
    expect(d.turns[0]).toMatchObject({ state: 'failed', failure_reason: 'timeout' });
    expect(d.chat.state).toBe('idle');
  });
});

describe('a mid-turn question', () => {
  it('parks the chat in awaiting_input; a bad answer is 400; the answer resumes the turn', async () => {
    const { t, project } = await setup({ FAKE_CLAUDE_SCENARIO: 'ask-question' });
    const chat = await createChat(t, { project_id: project.id, title: 'ask' });
    await send(t, chat.id, 'choose');
    const waiting = await waitChatState(t, chat.id, 'awaiting_input');
    expect(waiting.chat.pending_input).toMatchObject({
      kind: 'question',
      summary: 'Which colour?',
    });
    const bad = await t.api(
      'POST',
      `/v1/chats/${chat.id}/answer`,
      { answers: { 'Which flavour?': 'Red' } },
      {
        'content-type': 'application/json',
      },
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details.field).toBe('answers.Which flavour?');
    const ok = await t.api(
      'POST',
      `/v1/chats/${chat.id}/answer`,
      { answers: { 'Which colour?': 'Red' } },
      {
        'content-type': 'application/json',
      },
    );
    expect(ok.statusCode).toBe(200);
    const d = await waitTurn(t, chat.id, 1);
    expect(d.turns[0]).toMatchObject({ state: 'succeeded' });
    expect(d.turns[0]?.result_text).toContain('Red');
    const none = await t.api(
      'POST',
      `/v1/chats/${chat.id}/answer`,
      { allow: true },
      { 'content-type': 'application/json' },
    );
    expect(none.statusCode).toBe(409);
    expect(none.json().error).toMatchObject({ code: 'invalid_state', details: { state: 'idle' } });
  });

  it('stops waiting after defaults.input_timeout and fails the turn input_timeout', async () => {
    const { t, project } = await setup(
      { FAKE_CLAUDE_SCENARIO: 'ask-question' },
      'defaults:\n  input_timeout: 1h\n',
    );
    const chat = await createChat(t, { project_id: project.id, title: 'ask' });
    await send(t, chat.id, 'choose');
    await waitChatState(t, chat.id, 'awaiting_input');
    await (t.clock as FakeClock).advance('1h');
    const d = await waitTurn(t, chat.id, 1);
    expect(d.turns[0]).toMatchObject({ state: 'failed', failure_reason: 'input_timeout' });
  });
});

describe('cancel', () => {
  it('stops the live turn: the turn is cancelled, the chat idle with its session kept (decision 161)', async () => {
    const { t, project, record } = await setup({ FAKE_CLAUDE_SCENARIO: 'hang' });
    const chat = await createChat(t, { project_id: project.id, title: 'x' });
    const none = await t.api('POST', `/v1/chats/${chat.id}/cancel`);
    expect(none.statusCode).toBe(409);
    expect(none.json().error).toMatchObject({ code: 'invalid_state', details: { state: 'idle' } });
    await send(t, chat.id, 'go');
    await waitFor(async () => {
      const r = await t.api('GET', `/v1/chats/${chat.id}/turns/1/transcript`);
      return r.body.includes('"init"');
    });
    expect(starts(record)).toHaveLength(1);
    const res = await t.api('POST', `/v1/chats/${chat.id}/cancel`);
    expect(res.statusCode).toBe(200);
    expect(res.json().state).toBe('idle');
    const d = await chatDetail(t, chat.id);
    expect(d.turns[0]).toMatchObject({ state: 'cancelled', failure_reason: 'cancelled' });
    // The hang scenario printed its init line: the session is kept, so the next send resumes it.
    expect(d.chat.session_id).toEqual(expect.any(String));
  });
});

describe('turn transcripts and the chat stream', () => {
  it('serves each turn’s transcript with offset and tail, 404 for an unknown seq', async () => {
    const { t, project } = await setup();
    const chat = await createChat(t, { project_id: project.id, title: 'x' });
    await send(t, chat.id, 'one');
    await waitTurn(t, chat.id, 1);
    const full = await turnTranscript(t, chat.id, 1);
    const lines = full.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: 'svc.command_started' });
    expect(lines.some((l) => l.type === 'result')).toBe(true);
    const tail = await turnTranscript(t, chat.id, 1, '?tail=200');
    expect(full.body.endsWith(tail.body)).toBe(true);
    expect(tail.body.length).toBeLessThan(full.body.length);
    const from = await turnTranscript(t, chat.id, 1, `?offset=${full.headers['x-next-offset']}`);
    expect(from.body).toBe('');
    expect((await t.api('GET', `/v1/chats/${chat.id}/turns/2/transcript`)).statusCode).toBe(404);
    expect(
      (await t.api('GET', `/v1/chats/${chat.id}/turns/1/transcript?offset=1&tail=1`)).statusCode,
    ).toBe(400);
  });

  it('streams the chat’s durable events and its live agent output over SSE', async () => {
    const { t, project } = await setup();
    await t.kernel.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = t.kernel.app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    const chat = await createChat(t, { project_id: project.id, title: 'x' });
    const other = await createChat(t, { project_id: project.id, title: 'y' });
    const sse = await openSse(
      `http://127.0.0.1:${port}/v1/chats/${chat.id}/events?last_event_id=0`,
      {
        authorization: `Bearer ${t.token}`,
      },
    );
    await send(t, other.id, 'not mine');
    await waitTurn(t, other.id, 1);
    await send(t, chat.id, 'stream me');
    const frames = await sse.until((f) => f.some((x) => x.event === 'chat.turn_finished'), 15_000);
    const kinds = frames.map((f) => f.event).filter(Boolean);
    expect(kinds).toEqual(
      expect.arrayContaining(['chat.created', 'chat.turn_started', 'agent.output']),
    );
    const live = frames.filter((f) => f.event === 'agent.output');
    expect(
      live.every((f) => f.id === undefined && JSON.parse(f.data ?? '{}').chat_id === chat.id),
    ).toBe(true);
    const stored = frames.filter((f) => f.id);
    expect(stored.every((f) => JSON.parse(f.data ?? '{}').chat_id === chat.id)).toBe(true);
    sse.close();
    await t.kernel.app.close();
  });
});

describe('a daemon stop or crash', () => {
  it('ends a live turn interrupted and returns the chat to idle, on stop and after a crash', async () => {
    const root = tempDir();
    const config = agentConfig({ FAKE_CLAUDE_SCENARIO: 'hang' });
    const t = await buildTestApp({ root, config, keepOpen: true });
    const { project } = await addProject(t);
    const chat = await createChat(t, { project_id: project.id, title: 'x' });
    await send(t, chat.id, 'go');
    await t.close();
    const again = await buildTestApp({ root, config });
    const d = await chatDetail(again, chat.id);
    expect(d.chat.state).toBe('idle');
    expect(d.turns[0]).toMatchObject({ state: 'interrupted', failure_reason: 'daemon_stopping' });
    // A crash leaves the row running: the next start ends it.
    const db = again.kernel.services.store.db;
    db.prepare("UPDATE chats SET state = 'running' WHERE id = ?").run(chat.id);
    db.prepare(
      "UPDATE chat_turns SET state = 'running', failure_reason = NULL WHERE chat_id = ?",
    ).run(chat.id);
    await again.close();
    const third = await buildTestApp({ root, config });
    const after = await chatDetail(third, chat.id);
    expect(after.chat.state).toBe('idle');
    expect(after.turns[0]).toMatchObject({
      state: 'interrupted',
      failure_reason: 'daemon_restarted',
    });
  });
});
