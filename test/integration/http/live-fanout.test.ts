// Issue 22 point 4 (decision 246): a chunk of live command output is framed once and the same
// bytes are written to every stream that forwards it. Each follower of a task's stream must still
// get every chunk, the same frames as the others, and texts that are the transcript's lines —
// invalid UTF-8, multi-byte characters and \r\n included.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { openSse } from '../../support/sse.js';
import { act, addProject, commandWorkflow, createTask, waitState } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

describe('live output fan-out', () => {
  it('gives every follower of a task the same frames, one per chunk, with the transcript texts', async () => {
    const t = await buildTestApp();
    await t.kernel.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = t.kernel.app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    const dir = tempDir();
    const script = join(dir, 'talk.sh');
    writeFileSync(
      script,
      `i=0\nwhile [ $i -lt 300 ]; do printf 'line %d \\303\\251 \\377 "q"\\r\\n' $i; i=$((i+1)); done\nprintf 'last \\342\\202\\254'\n`,
    );
    const { project } = await addProject(t, { talk: commandWorkflow('talk', `sh ${script}`) });
    const task = await createTask(t, {
      project_id: project.id,
      title: 'f',
      workflow: 'talk',
      paused: true,
    });
    const url = `http://127.0.0.1:${port}/v1/tasks/${task.id}/events`;
    const headers = { authorization: `Bearer ${t.token}` };
    const followers = await Promise.all([
      openSse(url, headers),
      openSse(url, headers),
      openSse(url, headers),
    ]);
    for (const f of followers) await f.until((fr) => fr.some((x) => x.comment === 'connected'));
    await act(t, task.id, 'resume');
    await waitState(t, task.id, 'done');
    const done = (fr: { event?: string; data?: string }[]) =>
      fr.some(
        (x) => x.event === 'task.state_changed' && JSON.parse(x.data ?? '{}').payload.to === 'done',
      );
    const seen = await Promise.all(followers.map((f) => f.until(done)));
    const live = seen.map((fr) =>
      fr.filter((x) => x.event === 'command.output').map((x) => x.data),
    );
    expect(live[0]?.length).toBeGreaterThan(0);
    expect(live[1]).toEqual(live[0]);
    expect(live[2]).toEqual(live[0]);
    const texts = (live[0] ?? []).flatMap((d) => String(JSON.parse(d ?? '{}').text).split('\n'));
    const want = [...Array.from({ length: 300 }, (_, i) => `line ${i} é \ufffd "q"`), 'last €'];
    expect(texts).toEqual(want);
    for (const f of followers) f.close();
    await t.kernel.app.close();
  });
});
