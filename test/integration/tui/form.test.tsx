// Issue 12 point 1: the new-task form built from the workflow's fields[] declarations and
// /v1/resolve, and the quota badge per agent — against a real daemon (agent CLIs faked). A daemon
// without /v1/resolve (an older one) gets a form that says the preview is unavailable.
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { agentConfig } from '../../support/agents.js';
import { addProject, getTask } from '../../support/tasks.js';
import { listeningApp, renderBoard, selectedLine } from '../../support/tui.js';

const TICKET = [
  'name: ticket',
  'fields:',
  '  - name: ticket',
  '    label: Ticket',
  '    required: true',
  '    pattern: "^[A-Z]+-[0-9]+$"',
  '  - name: size',
  '    type: enum',
  '    values: [s, m, l]',
  '    default: m',
  '  - name: areas',
  '    type: enum',
  '    values: [ui, db, api]',
  '    multiple: true',
  'steps:',
  '  - id: gate',
  '    type: manual',
  '    instructions: "{{.Task.Fields.ticket}}"',
  '',
].join('\n');

describe('the new-task form', () => {
  it('builds rows from fields[], checks them, and creates the task', async () => {
    const { t, client } = await listeningApp();
    const { project } = await addProject(t, { ticket: TICKET }, { name: 'shop' });
    const b = renderBoard(client);
    await b.until('no tasks yet');
    await b.press('n');
    await b.until('‹ shop ›');
    await b.press('down');
    await b.until('‹ adhoc ›');
    // built-ins and the project's file, sorted: adhoc, create-workflow, ticket, update-workflows
    await b.press('right', 'right');
    const form = await b.until('Ticket*');
    expect(form).toMatch(/size\s+m/);
    expect(form).toContain('areas');
    await b.press('down', 'Fix the cart', 'down', 'down', 'ab-1');
    await b.until('pattern ^[A-Z]+-[0-9]+$');
    await b.press('ctrl+s');
    await b.until('Ticket must match ^[A-Z]+-[0-9]+$');
    expect(b.frame()).toContain('fix the marked rows first');
    for (let i = 0; i < 4; i++) await b.press('backspace');
    await b.press(
      'AB-1',
      'down',
      'right',
      'down',
      'right',
      'right',
      'space',
      'left',
      'left',
      'space',
    );
    const filled = await b.until('[x] ui');
    expect(filled).toMatch(/size\s+l/);
    expect(filled).toContain('[x] api');
    await b.press('ctrl+s');
    const created = await b.until(/created #\d+ \(queued\)/);
    const id = Number(/created #(\d+)/.exec(created)?.[1]);
    expect(selectedLine(created)).toContain('Fix the cart');
    const task = await getTask(t, id);
    expect(task).toMatchObject({
      project_id: project.id,
      workflow: 'ticket',
      title: 'Fix the cart',
      fields: { ticket: 'AB-1', size: 'l', areas: 'ui,api' },
    });
  });

  it('shows what the daemon refuses next to the row it names', async () => {
    const { t, client } = await listeningApp();
    await addProject(t, {}, { name: 'shop' });
    const b = renderBoard(client);
    await b.until('no tasks yet');
    await b.press('n');
    await b.until(/Workflow\*\s+adhoc/);
    await b.press('down', 'down', 'Refused', 'down', 'down', 'not-a-branch..name');
    await b.press('ctrl+s');
    // The daemon's details.field (branch_name) puts its message under that row; the form stays.
    const f = await b.until(
      /› Branch\s+not-a-branch\.\.name\n\s+branch_name "not-a-branch\.\.name".*contains "\.\."/,
    );
    expect(f).toContain('New task');
  });

  it('previews agents and the branch with /v1/resolve as the user types', async () => {
    const { t, client } = await listeningApp({ config: agentConfig() });
    await addProject(t, {}, { name: 'shop' });
    const b = renderBoard(client);
    await b.until('no tasks yet');
    await b.press('n');
    await b.until(/Workflow\*\s+adhoc/);
    await b.press('down', 'down', 'Add login');
    await b.until('branch svc/<id>-add-login (default)');
    await b.until('step run: claude (adapter)');
    // An agent override typed in the form is sent to /v1/resolve and comes back as the task's.
    await b.press('down', 'down', 'down', 'codex');
    await b.until('step run: codex (task)');
    await b.press('down', 'gpt-nope');
    await b.until('step run: codex (task) · gpt-nope (task)');
  });

  it('says the preview is unavailable where the daemon has no /v1/resolve', async () => {
    // An older daemon: the route answers 404 like any path it does not serve.
    const older = (app: FastifyInstance) => {
      app.addHook('onRequest', async (req, reply) => {
        if (req.url.startsWith('/v1/resolve'))
          return reply.code(404).send({ error: { code: 'not_found', message: 'no route' } });
      });
    };
    const { t, client } = await listeningApp({ extraRoutes: [older] });
    await addProject(t, {}, { name: 'shop' });
    const b = renderBoard(client);
    await b.until('no tasks yet');
    await b.press('n');
    await b.until('preview unavailable: this daemon has no POST /v1/resolve');
    await b.press('down', 'down', 'Still creates', 'ctrl+s');
    await b.until(/created #\d+ \(queued\)/);
  });
});

describe('the quota badge', () => {
  it('shows one badge per agent from the daemon’s records', async () => {
    const { client } = await listeningApp();
    const b = renderBoard(client);
    // No CLI is installed here (tests take node_modules/.bin off PATH): /v1/agents says so.
    await b.until('claude not installed · codex not installed · cursor no');
  });

  it('falls back to /v1/info’s agent rows where the daemon has no /v1/agents', async () => {
    const older = (app: FastifyInstance) => {
      app.addHook('onRequest', async (req, reply) => {
        if (req.url.startsWith('/v1/agents'))
          return reply.code(404).send({ error: { code: 'not_found', message: 'no route' } });
      });
    };
    const { client } = await listeningApp({ config: agentConfig(), extraRoutes: [older] });
    const b = renderBoard(client);
    await b.until(/claude (—|\d+%|ok) · codex/);
  });

  it('draws each agent’s quota from /v1/agents, and redraws on agent.quota_changed', async () => {
    const { t, client } = await listeningApp({ config: agentConfig() });
    const b = renderBoard(client);
    await b.until(/claude —/);
    const push = (used: number, resetsAt?: string) =>
      t.json('POST', '/v1/agents/claude/quota', {
        source: 'claude_status_line',
        windows: [
          {
            name: 'five_hour',
            used_percent: used,
            window: '5h',
            ...(resetsAt ? { resets_at: resetsAt } : {}),
          },
        ],
      });
    await push(42, new Date(Date.now() + 3600_000).toISOString());
    await b.until('claude 42% 5h');
    await push(100);
    await b.until(/claude spent(?! until)/);
  });
});
