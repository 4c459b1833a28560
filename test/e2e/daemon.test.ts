// Issue 2 "How it is checked": the built svc started as a user would, in temp directories.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipUnlessCi } from '../support/ci.js';
import { HAVE_BUILD, svc } from '../support/daemon-proc.js';
import { tempDir } from '../support/tmp.js';

async function errorOf(res: Response): Promise<{ code: string; message: string }> {
  return ((await res.json()) as { error: { code: string; message: string } }).error;
}

describe.skipIf(
  skipUnlessCi(!HAVE_BUILD && 'dist/ is not built (npm run build)', 'svc daemon, end to end'),
)('svc daemon, end to end', () => {
  let env: NodeJS.ProcessEnv;
  let dataDir: string;
  let base = '';
  let token = '';
  let root = '';

  beforeAll(() => {
    root = tempDir('svc-e2e-');
    dataDir = join(root, 'data');
    env = { SVC_DATA_DIR: dataDir, SVC_CONFIG_DIR: join(root, 'config') };
    const start = svc(env, 'daemon', 'start');
    expect(start.err).toBe('');
    expect(start.code).toBe(0);
    base = start.out;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  });

  afterAll(() => {
    svc(env, 'daemon', 'stop');
  });

  it('publishes daemon.json and an owner-only token', () => {
    const info = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8'));
    expect(Object.keys(info)).toEqual(
      expect.arrayContaining(['pid', 'port', 'started_at', 'version']),
    );
    expect(`http://127.0.0.1:${info.port}`).toBe(base);
    expect(statSync(join(dataDir, 'token')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'daemon.json')).mode & 0o777).toBe(0o600);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers health without a token and everything else only with it', async () => {
    const health = await fetch(`${base}/v1/health`);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const denied = await fetch(`${base}/v1/info`);
    expect(denied.status).toBe(401);
    expect((await errorOf(denied)).code).toBe('unauthorized');
    const info = await fetch(`${base}/v1/info`, { headers: { authorization: `Bearer ${token}` } });
    expect(info.status).toBe(200);
  });

  it('applies the body rules and patches the config', async () => {
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const two = await fetch(`${base}/v1/config`, {
      method: 'PATCH',
      headers: auth,
      body: '{"debug":true}{"debug":false}',
    });
    expect(two.status).toBe(400);
    expect((await errorOf(two)).code).toBe('invalid_json');
    const html = await fetch(`${base}/v1/config`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'text/html' },
      body: '<p>',
    });
    expect(html.status).toBe(415);
    const big = await fetch(`${base}/v1/config`, {
      method: 'PATCH',
      headers: auth,
      body: JSON.stringify({ branch_template: 'x'.repeat(70_000) }),
    });
    expect(big.status).toBe(413);
    const ok = await fetch(`${base}/v1/config`, {
      method: 'PATCH',
      headers: auth,
      body: JSON.stringify({ max_parallel_tasks: 5 }),
    });
    expect(((await ok.json()) as { max_parallel_tasks: number }).max_parallel_tasks).toBe(5);
    expect(svc(env, 'config', 'get', 'max_parallel_tasks').out).toBe('5');
    expect(svc(env, 'config', 'set', 'defaults.agent_timeout', '2h').out).toBe('2h');
    const bad = svc(env, 'config', 'set', 'max_parallel_tasks', '0');
    expect(bad.code).toBe(6);
    expect(bad.err).toContain('max_parallel_tasks');
  });

  it('refuses a second daemon on the same data directory with a clear message', () => {
    const second = svc(env, 'daemon', 'run');
    expect(second.code).toBe(1);
    expect(second.err).toMatch(/another svc daemon \(pid \d+\) is already running/);
  });

  it('never writes the token or Authorization headers to the log', () => {
    const log = readFileSync(join(dataDir, 'daemon.log'), 'utf8');
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(token);
    expect(log.toLowerCase()).not.toContain('bearer');
  });

  it('status reports the running daemon', () => {
    const s = svc(env, 'status', '--json');
    expect(s.code).toBe(0);
    expect(JSON.parse(s.out).url).toBe(base);
  });
});

describe.skipIf(
  skipUnlessCi(!HAVE_BUILD && 'dist/ is not built (npm run build)', 'stop and stale locks'),
)('stop and stale locks', () => {
  it('stops cleanly through the API, and a killed daemon leaves no lock behind', async () => {
    const root = tempDir('svc-e2e-');
    const env = { SVC_DATA_DIR: join(root, 'data'), SVC_CONFIG_DIR: join(root, 'config') };
    expect(svc(env, 'daemon', 'start').code).toBe(0);
    const stop = svc(env, 'daemon', 'stop');
    expect(stop).toMatchObject({ code: 0, out: 'svc daemon stopped' });
    expect(existsSync(join(root, 'data', 'daemon.json'))).toBe(false);
    expect(svc(env, 'status').code).toBe(3);

    expect(svc(env, 'daemon', 'start').code).toBe(0);
    const { pid } = JSON.parse(readFileSync(join(root, 'data', 'daemon.json'), 'utf8'));
    process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    const again = svc(env, 'daemon', 'start');
    expect(again.code).toBe(0);
    expect(svc(env, 'daemon', 'stop').code).toBe(0);
    // Five daemon starts and stops of the built CLI: generous for a loaded machine.
  }, 120_000);
});
