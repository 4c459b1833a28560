// Issue 17 point 9 / hold 7: cancel, timeout, chat cancel and daemon stop end everything an
// attempt started, including what left its process group and session. The fake claude starts a
// shell tool with `setsid` (as Claude Code's Bash tool does) that beats into a file every 50 ms;
// after each ending the shell is gone by the time the attempt is closed, and the file stops
// growing. Found through the attempt marker every descendant inherits (decision 182).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeClock } from '../../../kernel/clock/index.js';
import { agentConfig, agentWorkflow, stepRuns } from '../../support/agents.js';
import { buildTestApp, type TestApp, waitFor } from '../../support/app.js';
import { chatDetail, createChat, send } from '../../support/chats.js';
import { act, addProject, createTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

/** True while `pid` runs; a zombie waiting for its reaper counts as gone. */
function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

interface Daemonized {
  pidFile: string;
  beats: string;
  knobs: Record<string, string>;
}

function daemonized(): Daemonized {
  const dir = tempDir();
  const pidFile = join(dir, 'daemon.pid');
  const beats = join(dir, 'daemon.beats');
  return {
    pidFile,
    beats,
    knobs: {
      FAKE_CLAUDE_SCENARIO: 'daemonize',
      FAKE_CLAUDE_DAEMON_PID: pidFile,
      FAKE_CLAUDE_DAEMON_FILE: beats,
    },
  };
}

/** The daemonized shell's pid, once it beat at least once; it is in a session of its own. */
async function started(d: Daemonized): Promise<number> {
  const pid = await waitFor(() => {
    const n = Number(readFileSync(d.pidFile, 'utf8').trim());
    return n > 0 && existsSync(d.beats) ? n : null;
  }, 60_000);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const [, , pgid, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  expect(Number(session)).toBe(pid);
  expect(Number(pgid)).toBe(pid);
  return pid;
}

/** Gone now, and wrote nothing after: the beat file stops growing. */
async function goneAndQuiet(pid: number, d: Daemonized): Promise<void> {
  expect(alive(pid), `the daemonized shell ${pid} outlived the ending`).toBe(false);
  const size = statSync(d.beats).size;
  await new Promise((r) => setTimeout(r, 300));
  expect(statSync(d.beats).size).toBe(size);
}

async function agentTask(t: TestApp, extra: Record<string, unknown> = {}) {
  const { project } = await addProject(t, { agentic: agentWorkflow('agentic', extra) });
  return createTask(t, { project_id: project.id, title: 'daemonizes', workflow: 'agentic' });
}

describe('what an attempt started ends with it, inside its process group or out of it', () => {
  it('task cancel', { timeout: 90_000 }, async () => {
    const d = daemonized();
    const t = await buildTestApp({ config: agentConfig(d.knobs) });
    const task = await agentTask(t);
    const pid = await started(d);
    expect((await act(t, task.id, 'cancel')).statusCode).toBe(200);
    await waitState(t, task.id, 'aborted');
    await waitFor(async () => (await stepRuns(t, task.id))[0]?.state === 'interrupted');
    await goneAndQuiet(pid, d);
  });

  it('step timeout', { timeout: 90_000 }, async () => {
    const d = daemonized();
    const t = await buildTestApp({ config: agentConfig(d.knobs) });
    const task = await agentTask(t, { timeout: '1m', max_retries: 0 });
    const pid = await started(d);
    await (t.clock as FakeClock).advance('1m');
    const blocked = await waitState(t, task.id, 'blocked');
    expect(blocked.block_reason).toBe('timeout');
    await goneAndQuiet(pid, d);
  });

  it('chat cancel', { timeout: 90_000 }, async () => {
    const d = daemonized();
    const t = await buildTestApp({ config: agentConfig(d.knobs) });
    const { project } = await addProject(t);
    const chat = await createChat(t, { project_id: project.id, title: 'talk' });
    expect((await send(t, chat.id, 'go')).statusCode).toBeLessThan(300);
    const pid = await started(d);
    const res = await t.api('POST', `/v1/chats/${chat.id}/cancel`);
    expect(res.statusCode).toBe(200);
    expect((await chatDetail(t, chat.id)).turns[0]?.state).toBe('cancelled');
    await goneAndQuiet(pid, d);
  });

  it('daemon stop, with a step and a chat turn live', { timeout: 90_000 }, async () => {
    const d = daemonized();
    const c = daemonized();
    const t = await buildTestApp({ config: agentConfig(d.knobs), keepOpen: true });
    try {
      await agentTask(t);
      const stepPid = await started(d);
      const { project } = await addProject(t);
      const chat = await createChat(t, { project_id: project.id, title: 'talk' });
      // The chat's fake gets its own files: the environment policy changes for what starts next.
      const patched = await t.api(
        'PATCH',
        '/v1/config',
        { environment: { set: c.knobs } },
        { 'content-type': 'application/json' },
      );
      expect(patched.statusCode, patched.body).toBe(200);
      expect((await send(t, chat.id, 'go')).statusCode).toBeLessThan(300);
      const chatPid = await started(c);
      await t.close();
      await goneAndQuiet(stepPid, d);
      await goneAndQuiet(chatPid, c);
    } finally {
      await t.close();
    }
  });
});
