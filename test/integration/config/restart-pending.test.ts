// Issue 20 point 3: a config change that applies only at the next daemon start says so. PATCH and
// GET /v1/config name such keys in `X-Svc-Pending-Restart` (the body stays the configuration in
// force), and `svc config set listen …` / `svc config get` print a note saying when it applies.
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';
import { cli } from '../../support/cli.js';
import { daemonEnv, startDaemon } from '../../support/daemon.js';

describe('a change waiting for the next start', () => {
  it('is named in X-Svc-Pending-Restart on PATCH and GET, and cleared when set back', async () => {
    const t = await buildTestApp();
    const before = await t.api('GET', '/v1/config');
    expect(before.headers['x-svc-pending-restart']).toBeUndefined();
    const set = await t.api('PATCH', '/v1/config', { listen: '127.0.0.1:47811' });
    expect(set.statusCode).toBe(200);
    expect(set.json().listen).toBe('127.0.0.1:0');
    expect(set.headers['x-svc-pending-restart']).toBe('listen');
    expect((await t.api('GET', '/v1/config')).headers['x-svc-pending-restart']).toBe('listen');
    const other = await t.api('PATCH', '/v1/config', { max_parallel_tasks: 4 });
    expect(other.headers['x-svc-pending-restart']).toBe('listen');
    const back = await t.api('PATCH', '/v1/config', { listen: '127.0.0.1:0' });
    expect(back.headers['x-svc-pending-restart']).toBeUndefined();
  });

  it('svc config set listen prints the value in force and a note on when the new one applies', async () => {
    const env = daemonEnv();
    await startDaemon(env);
    const r = await cli(env, 'config', 'set', 'listen', '127.0.0.1:47811');
    expect(r.code).toBe(0);
    expect(r.out).toBe('127.0.0.1:0');
    expect(r.err).toBe(
      'note: listen "127.0.0.1:47811" is written to config.yaml and takes effect at the next daemon start (svc daemon stop, then svc daemon start); the value above is the one in force',
    );
    const get = await cli(env, 'config', 'get', 'listen');
    expect(get.out).toBe('127.0.0.1:0');
    expect(get.err).toContain(
      'note: listen is written to config.yaml and takes effect at the next daemon start',
    );
    const plain = await cli(env, 'config', 'set', 'max_parallel_tasks', '4');
    expect(plain).toMatchObject({ code: 0, out: '4', err: '' });
  });
});
