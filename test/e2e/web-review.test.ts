// Issue 23 points 4 and 8: the diff review in headless Chromium against the review routes of
// issue 16 (`GET /v1/tasks/{id}/diff`, `POST /v1/tasks/{id}/review`, docs/CONTRACT in the brief):
// the file tree with counts, a comment on a line, and the follow-up prompt the daemon composes from
// it reaching the agent; per-step diffs with `run=`; reject-and-repair at a gate.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routesOf } from '../../kernel/http/index.js';
import { agentConfig, records } from '../support/agents.js';
import { buildTestApp, waitFor } from '../support/app.js';
import { addProject, createTask, waitState } from '../support/tasks.js';
import { tempDir } from '../support/tmp.js';
import {
  type Browser,
  browserSkipReason,
  docScreenshot,
  launchBrowser,
  signIn,
  webApp,
} from '../support/web.js';

/** The review routes arrive with issue 16; until they are on this branch the page has nothing to drive. */
async function reviewRoutesMissing(): Promise<string | null> {
  const t = await buildTestApp({ keepOpen: true });
  const have = new Set(routesOf(t.kernel.app).map((r) => `${r.method} ${r.url}`));
  await t.close();
  const missing = ['GET /v1/tasks/:id/diff', 'POST /v1/tasks/:id/review'].filter(
    (r) => !have.has(r),
  );
  if (missing.length === 0) return null;
  process.stderr.write(
    `\n!!! SKIPPING the web board's diff review tests: the daemon has no ${missing.join(', ')} (issue 16). !!!\n\n`,
  );
  return `no ${missing.join(', ')} yet (issue 16)`;
}

const skip = browserSkipReason() ?? (await reviewRoutesMissing());

const NOTES = [
  'name: notes',
  'steps:',
  '  - id: write',
  '    type: command',
  `    run: "printf 'one\\\\ntwo\\\\nthree\\\\n' > notes.txt && git add notes.txt && git commit -qm notes"`,
  '  - id: more',
  '    type: command',
  `    run: "printf 'four\\\\n' >> notes.txt && printf 'x\\\\n' > extra.txt && git add -A && git commit -qm more"`,
  '',
].join('\n');

const GATED = `${NOTES.replace('name: notes', 'name: gated').trimEnd()}\n  - id: check\n    type: manual\n    instructions: Review the notes.\n`;

function prompts(file: string): string[] {
  return records(file)
    .filter((r) => r.event === 'stdin')
    .map((r) => String(r.data));
}

describe.skipIf(skip)(
  `the diff review in Chromium${skip ? ` (SKIPPED: ${skip})` : ''}`,
  { timeout: 90_000 },
  () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    it('comments on a line of a done task and the composed follow-up reaches the agent', async () => {
      const record = join(tempDir(), 'claude.jsonl');
      const app = await webApp({ config: agentConfig({ FAKE_CLAUDE_RECORD: record }) });
      const { project } = await addProject(app.t, { notes: NOTES }, { name: 'storefront' });
      const task = await createTask(app.t, {
        project_id: project.id,
        title: 'Notes',
        workflow: 'notes',
      });
      await waitState(app.t, task.id, 'done');
      const page = await browser.page();
      await signIn(page, app);
      await page.goto(`${app.base}/ui/#/tasks/${task.id}/review`);
      const tree = page.getByTestId('file-tree');
      await tree.getByText('notes.txt').waitFor();
      expect(await tree.textContent()).toContain('+4');
      await tree.getByText('extra.txt').waitFor();

      const line = page.locator(
        '.d2h-file-wrapper[data-path="notes.txt"] tr[data-side="new"][data-line="2"] td.d2h-code-side-linenumber',
      );
      await line.click();
      await page.locator('textarea[name="comment"]').fill('Say why two comes before three.');
      await page.locator('[data-action="save-comment"]').click();
      await page.getByText('Say why two comes before three.').waitFor();
      await docScreenshot(page, 'web-review.png');

      const send = page.locator('[data-action="send-review"]');
      expect(await send.textContent()).toBe('Send as follow-up');
      await send.click();
      await page.getByTestId('review-sent').waitFor();
      const prompt = await waitFor(
        () => prompts(record).find((p) => p.includes('Say why two comes before three.')),
        20_000,
      );
      expect(prompt).toContain('notes.txt:2');
    });

    it('shows one step run’s changes with run=, and rejects and repairs at a gate', async () => {
      const record = join(tempDir(), 'claude.jsonl');
      const app = await webApp({ config: agentConfig({ FAKE_CLAUDE_RECORD: record }) });
      const { project } = await addProject(app.t, { gated: GATED });
      const task = await createTask(app.t, {
        project_id: project.id,
        title: 'Gated',
        workflow: 'gated',
      });
      await waitState(app.t, task.id, 'awaiting_gate');
      const page = await browser.page();
      const runs: string[] = [];
      page.on('request', (r) => {
        const u = new URL(r.url());
        if (u.pathname.endsWith('/diff') && u.searchParams.get('run'))
          runs.push(u.searchParams.get('run') ?? '');
      });
      await signIn(page, app);
      await page.goto(`${app.base}/ui/#/tasks/${task.id}/review`);
      await page.getByTestId('file-tree').getByText('extra.txt').waitFor();

      // The second step's own changes: four, and extra.txt.
      const steps = await app.t.json<Array<{ id: number; step_id: string }>>(
        'GET',
        `/v1/tasks/${task.id}/steps`,
      );
      const more = steps.find((s) => s.step_id === 'more');
      await page.getByTestId('diff-run').selectOption(String(more?.id));
      await waitFor(() => runs.includes(String(more?.id)));
      // That run added one line to notes.txt (four of the branch's four) and all of extra.txt.
      const notes = page.getByTestId('file-tree').locator('button', { hasText: 'notes.txt' });
      await waitFor(async () => (await notes.textContent())?.includes('+1'));
      await page
        .locator('.d2h-file-wrapper[data-path="notes.txt"] tr[data-side="new"][data-line="4"]')
        .waitFor();

      await page
        .locator(
          '.d2h-file-wrapper[data-path="extra.txt"] tr[data-side="new"][data-line="1"] td.d2h-code-side-linenumber',
        )
        .click();
      await page.locator('textarea[name="comment"]').fill('extra.txt should not exist.');
      await page.locator('[data-action="save-comment"]').click();
      const send = page.locator('[data-action="send-review"]');
      expect(await send.textContent()).toBe('Reject and repair');
      await send.click();
      await page.getByTestId('review-sent').waitFor();
      await waitFor(
        () => prompts(record).some((p) => p.includes('extra.txt should not exist.')),
        20_000,
      );
    });
  },
);
