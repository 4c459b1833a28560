// Issue 23 point 2: `svc ui` asks the daemon for a sign-in code and opens the web board with the
// platform's opener (faked here by an `xdg-open` on PATH, which is outside svc), printing the link;
// `--no-open` prints only the link, on one line.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../support/app.js';
import { cli } from '../../support/cli.js';
import { daemonEnv, startDaemon } from '../../support/daemon.js';
import { tempDir } from '../../support/tmp.js';

const LINK = /^http:\/\/127\.0\.0\.1:(\d+)\/ui\/#code=([A-Za-z0-9_-]{43})$/;

async function exchange(url: string): Promise<Response> {
  const m = LINK.exec(url);
  if (!m) throw new Error(`not a sign-in link: ${url}`);
  return fetch(`http://127.0.0.1:${m[1]}/v1/ui/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: m[2] }),
  });
}

describe('svc ui', () => {
  it('--no-open prints the sign-in link alone, and the link signs in once', async () => {
    const env = daemonEnv();
    const daemon = await startDaemon(env);
    const r = await cli(env, 'ui', '--no-open');
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out.split('\n')).toHaveLength(1);
    expect(r.out).toMatch(LINK);
    expect(r.out).toContain(`:${daemon.port}/`);
    const token = readFileSync(join(env.SVC_DATA_DIR, 'token'), 'utf8').trim();
    expect(r.out).not.toContain(token);
    expect((await exchange(r.out)).status).toBe(200);
    expect((await exchange(r.out)).status).toBe(401);
  });

  it.runIf(process.platform === 'linux')(
    'opens the link with the platform opener and prints it',
    async () => {
      const env = daemonEnv();
      await startDaemon(env);
      const bin = tempDir('svc-opener-');
      const record = join(bin, 'opened.txt');
      writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}'\n`);
      chmodSync(join(bin, 'xdg-open'), 0o755);
      const r = await cli({ ...env, PATH: `${bin}:/usr/bin:/bin` }, 'ui');
      expect(r.code).toBe(0);
      expect(r.out).toMatch(LINK);
      expect(r.err).toContain('Opening the web board');
      const opened = await waitFor(() => {
        try {
          return readFileSync(record, 'utf8').trim();
        } catch {
          return '';
        }
      });
      expect(opened).toBe(r.out);
      expect((await exchange(opened)).status).toBe(200);
    },
  );

  it('still prints the link when no opener can be started', async () => {
    const env = daemonEnv();
    await startDaemon(env);
    const r = await cli({ ...env, PATH: tempDir('svc-empty-path-') }, 'ui');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(LINK);
    expect(r.err).toContain('open the link above yourself');
  });

  it('says the daemon is not running (exit 3)', async () => {
    const r = await cli(daemonEnv(), 'ui', '--no-open');
    expect(r.code).toBe(3);
    expect(r.out).toBe('');
  });
});
