// Issue 19 point 1 (decision 200): `npm start` runs the user's agents, not what sits in the
// checkout's node_modules/.bin. A checkout whose `start` script is svc's own, with a `claude` in
// node_modules/.bin and another on the user's PATH: the daemon npm starts finds the user's.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { waitFor } from '../support/app.js';
import { HAVE_BUILD } from '../support/daemon-proc.js';
import { tempDir } from '../support/tmp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FAKE_CLAUDE = join(ROOT, 'test', 'fixtures', 'fake-agents', 'claude');

describe.skipIf(!HAVE_BUILD)('npm start', () => {
  it('starts a daemon that finds agents on the shell’s PATH, not in node_modules/.bin', async () => {
    const root = tempDir('svc-npm-start-');
    const checkout = join(root, 'checkout');
    mkdirSync(join(checkout, 'node_modules', '.bin'), { recursive: true });
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      name: string;
      scripts: Record<string, string>;
    };
    // svc's own start script, run from a checkout whose dist/ is this build.
    writeFileSync(
      join(checkout, 'package.json'),
      JSON.stringify({ name: pkg.name, private: true, scripts: { start: pkg.scripts.start } }),
    );
    symlinkSync(join(ROOT, 'dist'), join(checkout, 'dist'));
    symlinkSync(FAKE_CLAUDE, join(checkout, 'node_modules', '.bin', 'claude'));
    const userBin = join(root, 'user-bin');
    mkdirSync(userBin);
    symlinkSync(FAKE_CLAUDE, join(userBin, 'claude'));

    const dataDir = join(root, 'data');
    const child: ChildProcess = spawn('npm', ['start', '--silent'], {
      cwd: checkout,
      env: {
        ...process.env,
        PATH: [userBin, process.env.PATH ?? ''].join(delimiter),
        SVC_DATA_DIR: dataDir,
        SVC_CONFIG_DIR: join(root, 'config'),
      },
      stdio: 'ignore',
    });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    let base = '';
    let token = '';
    onTestFinished(async () => {
      if (base) await fetch(`${base}/v1/daemon/stop`, { method: 'POST', headers: auth() });
      else child.kill('SIGTERM');
      await exited;
    });
    const auth = () => ({ authorization: `Bearer ${token}` });
    base = await waitFor(async () => {
      const info = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as {
        url: string;
      };
      return (await fetch(`${info.url}/v1/health`)).ok ? info.url : null;
    }, 30_000);
    token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    const res = await fetch(`${base}/v1/agents`, { headers: auth() });
    const { agents } = (await res.json()) as { agents: Array<{ name: string; path: string }> };
    expect(agents.find((a) => a.name === 'claude')?.path).toBe(join(userBin, 'claude'));
  });
});
