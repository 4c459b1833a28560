// Issue 23 points 2–6 and 8: the web board in headless Chromium against the real kernel
// (agent CLIs faked): sign in with a code, see a task appear live and follow it after a dropped
// stream, approve a gate, answer an agent's question, act on a blocked task, create a task through
// the form with a field error first. One browser for the file.
import type { Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentConfig, agentWorkflow } from '../support/agents.js';
import { waitFor } from '../support/app.js';
import { addProject, createTask, getTask, waitState } from '../support/tasks.js';
import {
  type Browser,
  browserSkipReason,
  docScreenshot,
  launchBrowser,
  signIn,
  webApp,
} from '../support/web.js';

const skip = browserSkipReason();

const GATE =
  'name: gate\nsteps:\n  - id: build\n    type: command\n    run: echo building the notes\n  - id: check\n    type: manual\n    instructions: Read the notes, then approve.\n';
const FLAKY =
  'name: flaky\nsteps:\n  - id: build\n    type: command\n    run: echo broken; exit 4\n    max_retries: 0\n';
const SLOW =
  'name: slow\nsteps:\n  - id: index\n    type: command\n    run: echo indexing; sleep 60\n';
const QUICK = 'name: quick\nsteps:\n  - id: tidy\n    type: command\n    run: echo tidied\n';
const TICKET = [
  'name: ticket',
  'fields:',
  '  - name: ticket',
  '    label: Ticket',
  '    required: true',
  '    pattern: "^[A-Z]+-[0-9]+$"',
  '  - name: size',
  '    type: enum',
  '    values: [small, large]',
  '    default: small',
  'steps:',
  '  - id: run',
  '    type: command',
  '    run: echo {{.Fields.ticket}}',
  '',
].join('\n');

describe.skipIf(skip)(
  `the web board in Chromium${skip ? ` (SKIPPED: ${skip})` : ''}`,
  { timeout: 90_000 },
  () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    it('without a valid code shows how to sign in, reads no data, and keeps no code in the address', async () => {
      const app = await webApp();
      const page = await browser.page();
      const api: string[] = [];
      page.on('request', (r) => {
        if (new URL(r.url()).pathname.startsWith('/v1/')) api.push(new URL(r.url()).pathname);
      });
      await page.goto(`${app.base}/`);
      await page.getByTestId('signin').waitFor();
      expect(page.url()).toBe(`${app.base}/ui/`);
      expect(await page.getByTestId('signin').textContent()).toContain('svc ui');
      expect(api).toEqual([]);

      await page.goto(`${app.base}/ui/#code=${'A'.repeat(43)}`);
      await page.getByText('not one this daemon issued').waitFor();
      expect(page.url()).not.toContain('code=');
      expect(api).toEqual(['/v1/ui/session']);
      expect(await page.evaluate('sessionStorage.length')).toBe(0);
      await page.close();
    });

    it('signs in, shows a task appear live, counts it in the title, and approves its gate', async () => {
      const app = await webApp({ config: agentConfig() });
      const { project } = await addProject(app.t, {
        gate: GATE,
        flaky: FLAKY,
        slow: SLOW,
        quick: QUICK,
      });
      // A board with something in every column, and a quota reading in the header.
      const make = (title: string, workflow: string, extra: Record<string, unknown> = {}) =>
        createTask(app.t, { project_id: project.id, title, workflow, ...extra });
      const others = [
        await make('Tidy the changelog', 'quick'),
        await make('Port the parser to the new API', 'flaky'),
        await make('Index the archive nightly', 'slow'),
        await make('Bump the lockfile', 'quick', { paused: true }),
      ];
      await waitState(app.t, others[0]?.id ?? 0, 'done');
      await waitState(app.t, others[1]?.id ?? 0, 'blocked');
      await waitState(app.t, others[2]?.id ?? 0, 'running');
      await app.t.json('POST', '/v1/agents/claude/quota', {
        source: 'claude_status_line',
        windows: [
          {
            name: 'five_hour',
            used_percent: 42,
            window: '5h',
            resets_at: new Date(Date.now() + 3 * 3600_000).toISOString(),
          },
        ],
      });
      const page = await browser.page();
      await signIn(page, app);
      expect(page.url()).not.toContain('code=');
      expect(await page.evaluate('document.cookie')).toBe('');
      const session = (await page.evaluate("sessionStorage.getItem('svc.session')")) as string;
      expect(session).toMatch(/^ui1\./);
      expect(session).not.toContain(app.t.token);
      await page.getByTestId('stream').getByText('live').waitFor();

      const task = await createTask(app.t, {
        project_id: project.id,
        title: 'Ship the notes',
        workflow: 'gate',
      });
      const card = page.locator(`[data-column="needs_you"] [data-task="${task.id}"]`);
      await card.waitFor();
      expect(await card.textContent()).toContain('2/2 check');
      await waitFor(async () => (await page.title()).startsWith('(2) svc'));
      expect(await page.getByTestId('needs-you').textContent()).toContain('2');
      await page.getByTestId('agents').getByText('42% of 5h').waitFor();
      for (const [column, t] of [
        ['done', others[0]],
        ['needs_you', others[1]],
        ['running', others[2]],
        ['queued', others[3]],
      ] as const)
        await page.locator(`[data-column="${column}"] [data-task="${t?.id}"]`).waitFor();
      await docScreenshot(page, 'web-board.png');

      await card.click();
      await page.getByTestId('gate').getByText('Read the notes, then approve.').waitFor();
      await page.getByTestId('output').getByText('building the notes', { exact: true }).waitFor();
      await page.locator('[data-action="approve"]').click();
      await page.getByTestId('task-state').getByText('done').waitFor();
      expect((await getTask(app.t, task.id)).state).toBe('done');
      await page.goto(`${app.base}/ui/#/`);
      await page.locator(`[data-column="done"] [data-task="${task.id}"]`).waitFor();
      await waitFor(async () => (await page.title()).startsWith('(1) svc'));
      await app.t.json('POST', `/v1/tasks/${others[2]?.id}/cancel`);
      await page.close();
    });

    it('raises a desktop notification, once turned on, when a task starts waiting on you', async () => {
      const app = await webApp();
      const { project } = await addProject(app.t, { gate: GATE });
      const page = await browser.page();
      await browser.context.grantPermissions(['notifications'], { origin: app.base });
      // The browser's Notification is outside svc: recorded instead of shown.
      await page.addInitScript(`
        window.__notes = [];
        window.Notification = class {
          static permission = 'granted';
          static requestPermission() { return Promise.resolve('granted'); }
          constructor(title, opts) { window.__notes.push(title + ' | ' + (opts && opts.body)); }
          close() {}
        };
      `);
      await signIn(page, app);
      await page.getByRole('button', { name: 'Notify me' }).click();
      await page.getByRole('button', { name: 'Notifications on' }).waitFor();
      // The board reads a new task's row a moment after its events: held here until the
      // notification is seen, the task is at its gate before the board knows its title, and the
      // notification must still name it.
      const held: Route[] = [];
      await page.route(/\/v1\/tasks\/\d+$/, (route) => {
        held.push(route);
      });
      const task = await createTask(app.t, {
        project_id: project.id,
        title: 'Ping me',
        workflow: 'gate',
      });
      const notes = await waitFor(async () => {
        const n = (await page.evaluate('window.__notes')) as string[];
        return n.length > 0 ? n : null;
      });
      expect(notes).toEqual([`#${task.id} waits for your approval | Ping me`]);
      // Released before the route goes: removing a route makes Playwright continue, on its own,
      // every request the removed handler still holds, and a second continue would throw.
      for (const r of held.splice(0)) await r.continue();
      await page.unroute(/\/v1\/tasks\/\d+$/);
      await page.close();
    });

    it('resumes the event stream with Last-Event-ID after a dropped connection, missing nothing', async () => {
      const app = await webApp();
      const { project } = await addProject(app.t, { gate: GATE });
      const page = await browser.page();
      const resumes: string[] = [];
      page.on('request', (r) => {
        const id = r.headers()['last-event-id'];
        if (new URL(r.url()).pathname === '/v1/events' && id) resumes.push(id);
      });
      await signIn(page, app);
      // Seen through the stream: the page has a last event id from here on.
      const first = await createTask(app.t, {
        project_id: project.id,
        title: 'First',
        workflow: 'gate',
      });
      await page.locator(`[data-column="needs_you"] [data-task="${first.id}"]`).waitFor();

      // Every stream is cut; a task is made before the page can reconnect.
      app.t.kernel.services.streams.closeAll();
      const second = await createTask(app.t, {
        project_id: project.id,
        title: 'Made while the stream was down',
        workflow: 'gate',
      });
      await page.locator(`[data-column="needs_you"] [data-task="${second.id}"]`).waitFor();
      expect(resumes.length).toBe(1);
      expect(Number(resumes[0])).toBeGreaterThan(0);
      await page.close();
    });

    it('answers an agent’s question with its options', async () => {
      const app = await webApp({ config: agentConfig({ FAKE_CLAUDE_SCENARIO: 'ask-question' }) });
      const { project } = await addProject(app.t, {
        asks: agentWorkflow('asks', { agent: 'claude', max_retries: 0 }),
      });
      const task = await createTask(app.t, {
        project_id: project.id,
        title: 'Ask',
        workflow: 'asks',
      });
      await waitState(app.t, task.id, 'awaiting_input');
      const page = await browser.page();
      await signIn(page, app);
      await page.locator(`[data-task="${task.id}"]`).click();
      const panel = page.getByTestId('input-panel');
      await panel.getByText('Which colour?').waitFor();
      await panel.getByRole('button', { name: 'Blue' }).click();
      await panel.locator('[data-action="send-answer"]').click();
      await waitState(app.t, task.id, 'done');
      await page.getByTestId('output').getByText('answered: {"Which colour?":"Blue"}').waitFor();
      await page.close();
    });

    it('retries a blocked step with a command override, follows up, then archives', async () => {
      const app = await webApp({ config: agentConfig() });
      const { project } = await addProject(app.t, { flaky: FLAKY });
      const task = await createTask(app.t, {
        project_id: project.id,
        title: 'Flaky',
        workflow: 'flaky',
      });
      await waitState(app.t, task.id, 'blocked');
      const page = await browser.page();
      await signIn(page, app);
      await page.locator(`[data-column="needs_you"] [data-task="${task.id}"]`).click();
      await page.locator('[data-action="retry"]').click();
      await page.locator('input[name="run_override"]').fill('echo fixed-by-override');
      await page.getByRole('button', { name: 'Retry', exact: true }).click();
      await waitState(app.t, task.id, 'done');
      await page.getByTestId('task-state').getByText('done').waitFor();
      const steps = await app.t.json<Array<{ run_override: string | null }>>(
        'GET',
        `/v1/tasks/${task.id}/steps`,
      );
      expect(steps.map((s) => s.run_override)).toEqual([null, 'echo fixed-by-override']);

      await page.locator('[data-action="follow_up"]').click();
      await page.locator('textarea[name="prompt"]').fill('Now tidy up');
      await page.getByRole('button', { name: 'Follow up', exact: true }).click();
      await waitFor(async () => ((await getTask(app.t, task.id)).steps ?? []).length === 3, 15_000);
      // The follow-up's agent (the fake claude) finishes: the task is done again, and archived.
      await waitState(app.t, task.id, 'done');
      await page.locator('[data-action="archive"]').click();
      await page.locator('[data-confirm="archive"]').click();
      await waitState(app.t, task.id, 'archived');
      await page.close();
    });

    it('creates a task through the form, showing the API’s field error next to the field first', async () => {
      const app = await webApp();
      const { project } = await addProject(app.t, { ticket: TICKET });
      const page = await browser.page();
      await signIn(page, app);
      await page.getByTestId('new-task').click();
      const form = page.getByTestId('new-task-form');
      await form.locator('select[name="workflow"]').selectOption('ticket');
      await form.locator('input[name="fields.ticket"]').waitFor();
      expect(await form.locator('select[name="fields.size"]').inputValue()).toBe('small');
      await form.locator('input[name="title"]').fill('From the web');
      await form.locator('input[name="fields.ticket"]').fill('not a ticket');
      await form.locator('[data-action="create"]').click();
      const error = form.locator('[data-error-for="fields.ticket"]');
      await error.waitFor();
      expect(await error.textContent()).toContain('ticket');
      expect(await app.t.json<unknown[]>('GET', '/v1/tasks')).toEqual([]);

      await form.locator('input[name="fields.ticket"]').fill('SVC-23');
      await form.locator('select[name="fields.size"]').selectOption('large');
      await form.locator('[data-action="create"]').click();
      await page.getByTestId('task-page').waitFor();
      const [row] = await app.t.json<Array<{ id: number; title: string; project_id: number }>>(
        'GET',
        '/v1/tasks',
      );
      expect(row).toMatchObject({ title: 'From the web', project_id: project.id });
      const detail = await getTask(app.t, row?.id ?? 0);
      expect(detail.fields).toEqual({ ticket: 'SVC-23', size: 'large' });
      expect(page.url()).toContain(`#/tasks/${row?.id}`);
      await page.close();
    });

    it('starts a chat, shows the agent’s reply, and hands the chat off to a task', async () => {
      const app = await webApp({ config: agentConfig() });
      await addProject(app.t, {}, { name: 'storefront' });
      const page = await browser.page();
      await signIn(page, app);
      await page.goto(`${app.base}/ui/#/chats`);
      await page.getByPlaceholder('What do you want to talk about?').fill('Plan the release');
      await page.getByRole('button', { name: 'New chat' }).click();
      const chat = page.getByTestId('chat-page');
      await chat.waitFor();
      await chat.locator('textarea').fill('Which files change?');
      await chat.getByRole('button', { name: 'Send', exact: true }).click();
      await chat.getByText('done: Which files change?').waitFor();
      await chat.getByRole('button', { name: 'Hand off to a task…' }).click();
      await page.getByPlaceholder('Task title').fill('Release plan');
      await page.getByRole('button', { name: 'Create task from this chat' }).click();
      await page.getByTestId('task-page').waitFor();
      const [row] = await app.t.json<Array<{ title: string }>>('GET', '/v1/tasks');
      expect(row?.title).toBe('Release plan');
      await page.close();
    });
  },
);
