// Issue 12 point 1: the new-task form built from the workflow's fields[] declarations and
// /v1/resolve, and the quota badge per agent — against a real daemon. Where a route has not
// landed in this daemon yet (/v1/resolve, /v1/agents), the board says so or falls back, and a
// stub serving the SPEC's documented shape proves the drawing.
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Services } from '../../../kernel/container.js';
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
    await b.press('down', 'down', 'Refused', 'down', 'down', 'not a branch..name');
    await b.press('ctrl+s');
    // The daemon's details.field (branch_name) puts its message under that row; the form stays.
    const f = await b.until(
      /› Branch\s+not a branch\.\.name\n\s+branch name "not a branch\.\.name".*contains "\.\."/,
    );
    expect(f).toContain('New task');
  });

  it('previews agents and the branch with /v1/resolve, or says the daemon has none', async () => {
    const { t, client } = await listeningApp();
    await addProject(t, { ticket: TICKET }, { name: 'shop' });
    const b = renderBoard(client);
    await b.until('no tasks yet');
    await b.press('n');
    await b.until(/Workflow\*\s+adhoc/);
    if (!t.kernel.app.hasRoute({ method: 'POST', url: '/v1/resolve' })) {
      await b.until('preview unavailable: this daemon has no POST /v1/resolve');
      return;
    }
    await b.press('down', 'down', 'Add login');
    await b.until(/branch svc\/<id>-add-login \(default\)/);
    await b.until(/step run: \w+ \(\w+\)/);
  });

  it('draws the preview from the documented /v1/resolve shape', async () => {
    let stubbed = false;
    const bodies: Array<Record<string, unknown>> = [];
    const resolve = (app: FastifyInstance) => {
      if (app.hasRoute({ method: 'POST', url: '/v1/resolve' })) return;
      stubbed = true;
      app.post('/v1/resolve', async (req) => {
        const body = req.body as Record<string, unknown>;
        bodies.push(body);
        const slug = String(body.title ?? '')
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-');
        return {
          workflow: body.workflow,
          steps: [
            {
              index: 0,
              id: 'run',
              type: 'agent',
              agent: {
                value: String(body.agent ?? 'claude'),
                source: body.agent ? 'task' : 'adapter',
              },
              model: { value: '', source: 'adapter' },
              effort: { value: 'high', source: 'workflow' },
            },
          ],
          branch: { value: `svc/<id>-${slug}`, source: 'default', placeholder: true },
        };
      });
    };
    const { t, client } = await listeningApp({ extraRoutes: [resolve] });
    if (!stubbed) return;
    await addProject(t, {}, { name: 'shop' });
    const b = renderBoard(client);
    await b.until('no tasks yet');
    await b.press('n');
    await b.until(/Workflow\*\s+adhoc/);
    await b.press('down', 'down', 'Add login');
    await b.until('branch svc/<id>-add-login (default)');
    await b.until('step run: claude (adapter) · model: CLI default (adapter) · high (workflow)');
    await b.press('down', 'down', 'down', 'codex');
    await b.until('step run: codex (task)');
    expect(bodies.at(-1)).toMatchObject({ workflow: 'adhoc', title: 'Add login', agent: 'codex' });
  });
});

describe('the quota badge', () => {
  it('shows one badge per agent from the daemon’s records', async () => {
    const { client } = await listeningApp();
    const b = renderBoard(client);
    // No CLI is installed here: /v1/agents (or /v1/info's rows before it lands) says so per agent.
    await b.until('claude not installed · codex not installed · cursor no');
  });

  it('draws SPEC §2.4 quota blocks, and redraws on agent.quota_changed', async () => {
    let stubbed = false;
    let quota: Record<string, unknown> | null = {
      spent: false,
      used_percent: 42,
      window: '5h',
      observed_at: new Date().toISOString(),
      resets_at: new Date(Date.now() + 3600_000).toISOString(),
      resets_at_reported: true,
      source: 'claude_status_line',
      windows: [],
    };
    const agents = (app: FastifyInstance, s: Services) => {
      if (app.hasRoute({ method: 'GET', url: '/v1/agents' })) return;
      stubbed = true;
      app.get('/v1/agents', async () => ({
        agents: [
          { name: 'claude', available: true, quota },
          { name: 'codex', available: true, quota: null },
        ],
      }));
      app.post('/test/quota', async () => {
        quota = {
          ...(quota as Record<string, unknown>),
          spent: true,
          used_percent: 100,
          resets_at: '0001-01-01T00:00:00Z',
          resets_at_reported: false,
        };
        s.events.append('agent.quota_changed', {}, { agent: 'claude' });
        return {};
      });
    };
    const { t, client } = await listeningApp({ extraRoutes: [agents] });
    if (!stubbed) return;
    const b = renderBoard(client);
    await b.until('claude 42% 5h · codex —');
    await t.json('POST', '/test/quota', {});
    await b.until('claude spent · codex —');
  });
});
