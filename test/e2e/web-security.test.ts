// Issue 23 points 2 and 9 in a real browser: the link the built `svc ui` prints signs in once; a
// page of another origin (a second loopback port) can neither read an answer nor act, not even
// holding a session credential, nor frame the board; a session the daemon no longer honours
// shows the sign-in message and no data.
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_BUILD, SVC_BIN } from '../support/daemon-proc.js';
import { addProject, createTask, getTask, waitState } from '../support/tasks.js';
import { tempDir } from '../support/tmp.js';
import { type Browser, browserSkipReason, launchBrowser, signIn, webApp } from '../support/web.js';

const skip = browserSkipReason() ?? (HAVE_BUILD ? null : 'dist/ is not built (npm run build)');

const GATE = 'name: gate\nsteps:\n  - id: check\n    type: manual\n    instructions: look\n';

/** A page of another origin: a plain server on another loopback port. */
async function otherOrigin(): Promise<{ base: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>elsewhere</title><p>another site</p>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, server };
}

describe.skipIf(skip)(
  `the web board’s security in Chromium${skip ? ` (SKIPPED: ${skip})` : ''}`,
  { timeout: 90_000 },
  () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    it('signs in through the link the built `svc ui --no-open` prints, once', async () => {
      const root = tempDir('svc-web-e2e-');
      const env = {
        ...process.env,
        SVC_DATA_DIR: join(root, 'data'),
        SVC_CONFIG_DIR: join(root, 'config'),
      };
      const svc = (...args: string[]) =>
        spawnSync(process.execPath, [SVC_BIN, ...args], { env, encoding: 'utf8', timeout: 30_000 });
      expect(svc('daemon', 'start').status).toBe(0);
      try {
        const r = svc('ui', '--no-open');
        expect(r.status).toBe(0);
        const url = r.stdout.trim();
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/#code=[A-Za-z0-9_-]{43}$/);
        const page = await browser.page();
        await page.goto(url);
        await page.getByTestId('board').waitFor();
        expect(page.url()).not.toContain('code=');
        const again = await browser.page();
        await again.goto(url);
        await again.getByText('That sign-in link was already used.').waitFor();
        await page.close();
        await again.close();
      } finally {
        svc('daemon', 'stop');
      }
    });

    it('a page of another origin can neither read nor act, even with a session credential', async () => {
      const app = await webApp();
      const { project } = await addProject(app.t, { gate: GATE });
      const task = await createTask(app.t, {
        project_id: project.id,
        title: 'Keep me',
        workflow: 'gate',
      });
      await waitState(app.t, task.id, 'awaiting_gate');
      const board = await browser.page();
      await signIn(board, app);
      const session = (await board.evaluate("sessionStorage.getItem('svc.session')")) as string;

      const { base, server } = await otherOrigin();
      try {
        const evil = await browser.page();
        await evil.goto(`${base}/`);
        const outcome = (await evil.evaluate(
          `(async ({ daemon, id, session }) => {
          const attempt = async (f) => { try { const r = await f(); return 'read ' + r.status + ' ' + (await r.text()).slice(0, 40); } catch (e) { return 'blocked ' + e.name; } };
          return {
            read: await attempt(() => fetch(daemon + '/v1/tasks')),
            readWithSession: await attempt(() => fetch(daemon + '/v1/tasks', { headers: { authorization: 'Bearer ' + session } })),
            cancelWithSession: await attempt(() => fetch(daemon + '/v1/tasks/' + id + '/cancel', { method: 'POST', headers: { authorization: 'Bearer ' + session } })),
            cancelBlind: await attempt(() => fetch(daemon + '/v1/tasks/' + id + '/cancel', { method: 'POST', mode: 'no-cors', body: '{}' })),
            reject: await attempt(() => fetch(daemon + '/v1/tasks/' + id + '/reject', { method: 'POST', mode: 'no-cors', credentials: 'include' })),
          };
        })(${JSON.stringify({ daemon: app.base, id: task.id, session })})`,
        )) as Record<string, string>;
        expect(outcome.read).toBe('blocked TypeError');
        expect(outcome.readWithSession).toBe('blocked TypeError');
        expect(outcome.cancelWithSession).toBe('blocked TypeError');
        // A no-cors request reaches the daemon without a credential (401, nothing done), and its
        // answer is opaque at best; Cross-Origin-Resource-Policy makes the browser drop it.
        for (const k of ['cancelBlind', 'reject'])
          expect(outcome[k], k).toMatch(/^(blocked TypeError|read 0 )$/);
        const after = await getTask(app.t, task.id);
        expect(after.state).toBe('awaiting_gate');

        // Nor can it frame the board (frame-ancestors 'none').
        await evil.evaluate(`new Promise((resolve) => {
        const f = document.createElement('iframe');
        f.src = ${JSON.stringify(`${app.base}/ui/`)};
        f.onload = () => resolve(null);
        document.body.appendChild(f);
        setTimeout(resolve, 3000);
      })`);
        const framed = evil.frames().find((f) => f !== evil.mainFrame());
        expect(framed?.url() ?? '').not.toBe(`${app.base}/ui/`);
        expect(await framed?.locator('[data-testid="board"]').count()).toBe(0);
        await evil.close();
      } finally {
        server.close();
      }
      await board.close();
    });

    it('a session the daemon no longer honours shows the sign-in message and no data', async () => {
      const app = await webApp();
      const { project } = await addProject(app.t, { gate: GATE });
      await createTask(app.t, { project_id: project.id, title: 'Secret title', workflow: 'gate' });
      const page = await browser.page();
      await signIn(page, app);
      await page.getByText('Secret title').waitFor();
      await page.evaluate(
        "sessionStorage.setItem('svc.session', sessionStorage.getItem('svc.session').slice(0, -2) + 'xx')",
      );
      await page.reload();
      await page.getByTestId('signin').waitFor();
      await page.getByText('Your session ended').waitFor();
      expect(await page.getByText('Secret title').count()).toBe(0);
      await page.close();
    });
  },
);
