/**
 * Helpers for the review tests (issue 16): a project whose task leaves every kind of change in its
 * worktree and then waits at a gate, and readers for the diff route's text and stat forms.
 */
import type { DiffStat } from '../../shared/wire-types.js';
import type { TestApp } from './app.js';
import { addProject, createTask, waitState } from './tasks.js';

/**
 * A command step that commits, stages, edits, renames, adds untracked text and binary files and an
 * ignored file, then a gate. The base has a CRLF file the step edits and a `.gitignore`.
 */
export const WORK_SCRIPT = [
  'set -e',
  'echo committed > committed.txt && git add committed.txt && git commit -qm "step commit"',
  'echo staged > staged.txt && git add staged.txt',
  'echo "more" >> README.md',
  'git mv keep.txt renamed.txt',
  "printf 'x\\r\\nz\\r\\n' > crlf.txt",
  'echo brand-new > untracked.txt',
  'mkdir -p deep/dir && echo nested > deep/dir/inner.txt',
  "printf '\\000\\001\\002binary' > blob.bin",
  'echo ignored > noise.log',
].join('\n');

export function gateWorkflow(name: string, run: string): string {
  return `name: ${name}\nsteps:\n  - id: change\n    type: command\n    run: ${JSON.stringify(run)}\n  - id: check\n    type: manual\n    instructions: read the diff, then approve\n`;
}

export const BASE_FILES = {
  'README.md': '# test repo\n',
  '.gitignore': '*.log\n',
  'keep.txt': 'a line kept across the rename\nand another\nand a third\n',
  'crlf.txt': 'x\r\ny\r\n',
  '.gitattributes': '*.slow filter=slow\n',
  'data.slow': 'slow data\n',
};

/** A project with the base files and `workflows`, and a task of `workflow` stopped at its gate. */
export async function gatedTask(
  t: TestApp,
  workflows: Record<string, string> = { work: gateWorkflow('work', WORK_SCRIPT) },
  workflow = 'work',
) {
  const { repo, project } = await addProject(t, workflows);
  repo.commit('base files', BASE_FILES);
  const task = await createTask(t, { project_id: project.id, title: 'Work', workflow });
  const gated = await waitState(t, task.id, 'awaiting_gate');
  return { repo, project, task: gated };
}

export async function diffOf(t: TestApp, id: number, query = '') {
  const res = await t.api('GET', `/v1/tasks/${id}/diff${query}`);
  return {
    status: res.statusCode,
    body: res.body,
    raw: res.rawPayload,
    source: res.headers['x-svc-diff-source'],
    truncated: res.headers['x-svc-diff-truncated'],
    type: res.headers['content-type'],
    json: () => res.json() as Record<string, unknown>,
  };
}

/** The stat answer as the boards read it (shared/wire-types.ts), with what these tests also check. */
export interface StatJson extends DiffStat {
  merge_base: string;
  head: string;
  run?: number;
}

/** The `diff --git` headers of a diff text, in order. */
export function headers(text: string): string[] {
  return text.split('\n').filter((l) => l.startsWith('diff --git '));
}
