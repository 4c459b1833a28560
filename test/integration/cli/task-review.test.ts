// Issue 16 points 2 and 5: `svc task diff` (colour and pager only on a terminal, NO_COLOR, exit 0
// on an empty diff, --stat, --name-only, --run, a path) and `svc task follow-up --review <file>`,
// against a real daemon.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReviewFile } from '../../../cli/commands/task-review.js';
import { main } from '../../../cli/index.js';
import { waitFor } from '../../support/app.js';
import { cli, cliCreateTask } from '../../support/cli.js';
import { daemonEnv, startDaemon } from '../../support/daemon.js';
import { gitRepo } from '../../support/git.js';
import { BASE_FILES, gateWorkflow, WORK_SCRIPT } from '../../support/review.js';
import { withWorkflows } from '../../support/tasks.js';
import { tempDir } from '../../support/tmp.js';

async function gatedTaskViaCli() {
  const env = daemonEnv();
  await startDaemon(env);
  const repo = gitRepo({ files: BASE_FILES });
  withWorkflows(repo, {
    work: gateWorkflow('work', WORK_SCRIPT),
    quiet: gateWorkflow('quiet', 'true'),
  });
  expect((await cli(env, 'project', 'add', repo.path)).code).toBe(0);
  const task = await cliCreateTask(env, 'Work', 'work');
  const state = async (id: number) =>
    JSON.parse((await cli(env, 'task', 'show', String(id), '--json')).out).state;
  await waitFor(async () => (await state(task.id)) === 'awaiting_gate', 15_000);
  return { env, repo, id: task.id, state };
}

/** Runs the CLI with standard output as a terminal (or not), capturing the bytes it writes. */
async function onTerminal(env: NodeJS.ProcessEnv, isTTY: boolean, ...argv: string[]) {
  const chunks: Buffer[] = [];
  const err: string[] = [];
  const code = await main(argv, env, {
    out: (t) => chunks.push(Buffer.from(`${t}\n`)),
    err: (t) => err.push(t),
    stdout: { isTTY, write: async (b) => void chunks.push(Buffer.from(b)) },
  });
  return { code, out: Buffer.concat(chunks).toString('utf8'), err: err.join('\n') };
}

/** A pager that records what it was given (and its arguments) in `file`. */
function recordingPager(): { pager: string; got: () => string | null } {
  const dir = tempDir('svc-pager-');
  const pager = join(dir, 'pager.sh');
  const file = join(dir, 'paged');
  writeFileSync(pager, `#!/bin/sh\necho "args: $*" > ${file}\ncat >> ${file}\n`);
  chmodSync(pager, 0o755);
  return { pager, got: () => (existsSync(file) ? readFileSync(file, 'utf8') : null) };
}

describe('svc task diff', () => {
  it('prints the plain diff when stdout is not a terminal: no colour, no pager', async () => {
    const { env, id } = await gatedTaskViaCli();
    const { pager, got } = recordingPager();
    const r = await onTerminal({ ...env, PAGER: pager }, false, 'task', 'diff', String(id));
    expect(r.code).toBe(0);
    expect(r.out).toContain('diff --git a/untracked.txt b/untracked.txt\nnew file mode 100644');
    expect(r.out).toContain('+brand-new\n');
    expect(r.out).not.toContain('\u001b[');
    expect(got()).toBeNull();
  });

  it('on a terminal colours the hunks and pages through $PAGER, unless NO_COLOR or PAGER=cat', async () => {
    const { env, id } = await gatedTaskViaCli();
    const first = recordingPager();
    const paged = await onTerminal(
      { ...env, PAGER: `${first.pager} -R` },
      true,
      'task',
      'diff',
      String(id),
    );
    expect(paged.code).toBe(0);
    expect(paged.out).toBe('');
    const text = first.got() ?? '';
    expect(text.split('\n')[0]).toBe('args: -R');
    expect(text).toContain('\u001b[1mdiff --git a/README.md b/README.md\u001b[m');
    expect(text).toContain('\u001b[36m@@ -1 +1,2 @@\u001b[m');
    expect(text).toContain('\u001b[32m+more\u001b[m');
    expect(text).toContain('\u001b[31m-y\u001b[m\r\n\u001b[32m+z\u001b[m\r\n');

    const second = recordingPager();
    await onTerminal(
      { ...env, PAGER: second.pager, NO_COLOR: '1' },
      true,
      'task',
      'diff',
      String(id),
    );
    expect(second.got()).toContain('+more\n');
    expect(second.got()).not.toContain('\u001b[');

    const direct = await onTerminal({ ...env, PAGER: 'cat' }, true, 'task', 'diff', String(id));
    expect(direct.out).toContain('\u001b[32m+brand-new\u001b[m');
    const noPager = await onTerminal(
      { ...env, PAGER: first.pager },
      true,
      'task',
      'diff',
      String(id),
      '--no-pager',
    );
    expect(noPager.out).toContain('\u001b[32m+brand-new\u001b[m');
    // A pager that is not installed does not lose the diff.
    const missing = await onTerminal(
      { ...env, PAGER: '/nonexistent/pager' },
      true,
      'task',
      'diff',
      String(id),
    );
    expect(missing.code).toBe(0);
    expect(missing.out).toContain('+brand-new');
  });

  it('lists files with --stat, names with --name-only, one file by path, one run with --run', async () => {
    const { env, id } = await gatedTaskViaCli();
    const stat = await cli(env, 'task', 'diff', String(id), '--stat');
    expect(stat.code).toBe(0);
    expect(stat.out).toContain('M README.md  +1 -0');
    expect(stat.out).toContain('R keep.txt → renamed.txt  +0 -0');
    expect(stat.out).toContain('A blob.bin  (binary)');
    expect(stat.out).toMatch(/8 files changed, \d+ insertions\(\+\), 1 deletion\(-\)$/);
    const names = await cli(env, 'task', 'diff', String(id), '--name-only');
    expect(names.out.split('\n')).toContain('deep/dir/inner.txt');
    const one = await cli(env, 'task', 'diff', String(id), 'README.md');
    expect(one.out.match(/^diff --git/gm)).toHaveLength(1);
    const steps = JSON.parse((await cli(env, 'task', 'steps', String(id), '--json')).out) as Array<{
      id: number;
      step_id: string;
    }>;
    const change = steps.find((s) => s.step_id === 'change')?.id;
    const run = await cli(env, 'task', 'diff', String(id), '--run', String(change), '--name-only');
    expect(run.out.split('\n')).toContain('untracked.txt');
    const gate = steps.find((s) => s.step_id === 'check')?.id;
    const refused = await cli(env, 'task', 'diff', String(id), '--run', String(gate));
    expect(refused.code).toBe(5);
    expect(refused.err).toContain('no_heads');
    expect((await cli(env, 'task', 'diff', String(id), '--stat', '--name-only')).code).toBe(2);
    expect((await cli(env, 'task', 'diff', '999')).code).toBe(4);
  });

  it('exits 0 with nothing to print when the task changed nothing', async () => {
    const { env, state } = await gatedTaskViaCli();
    const quiet = await cliCreateTask(env, 'Quiet', 'quiet');
    await waitFor(async () => (await state(quiet.id)) === 'awaiting_gate', 15_000);
    const r = await cli(env, 'task', 'diff', String(quiet.id));
    expect(r).toEqual({ code: 0, out: '', err: '' });
    expect((await cli(env, 'task', 'diff', String(quiet.id), '--stat')).out).toBe('no changes');
  });
});

describe('svc task follow-up --review', () => {
  it('reads path:line: comments, summary first, continuation lines joined', () => {
    expect(
      parseReviewFile(
        'Overall fine.\n\nsrc/a.ts:12: use a constant\nand name it well\nREADME.md:3: typo\n',
      ),
    ).toEqual({
      summary: 'Overall fine.',
      comments: [
        { path: 'src/a.ts', line: 12, body: 'use a constant\nand name it well' },
        { path: 'README.md', line: 3, body: 'typo' },
      ],
    });
    expect(() => parseReviewFile('a.ts:3:\n')).toThrow(
      'line 1 of the review file (a.ts:3) has no comment',
    );
    expect(() => parseReviewFile('\n  \n')).toThrow('holds no comment');
  });

  it('sends a review file at a gate as a reject then repair; --dry-run prints the prompt', async () => {
    const { env, id, state } = await gatedTaskViaCli();
    const file = join(tempDir(), 'review.txt');
    writeFileSync(file, 'Two small things.\nuntracked.txt:1: name it for what it holds\n');
    const dry = await cli(env, 'task', 'follow-up', String(id), '--review', file, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toContain(
      '1. untracked.txt:1: name it for what it holds\n```diff\n@@ -0,0 +1 @@\n+brand-new\n```',
    );
    expect(await state(id)).toBe('awaiting_gate');

    const bad = join(tempDir(), 'bad.txt');
    writeFileSync(bad, 'nowhere.txt:1: hm\n');
    const refused = await cli(env, 'task', 'follow-up', String(id), '--review', bad);
    expect(refused.code).toBe(6);
    expect(refused.err).toContain('comments[0].path');

    const sent = await cli(
      env,
      'task',
      'follow-up',
      String(id),
      '--review',
      file,
      '--agent',
      'claude',
    );
    expect(sent.code).toBe(0);
    expect(sent.out).toBe(
      `task ${id} queued (review of 1 comment sent as a reject, then a repair at the gate)`,
    );
    expect(
      (await cli(env, 'task', 'follow-up', String(id), '--review', join(tempDir(), 'none'))).code,
    ).toBe(2);
  });
});
