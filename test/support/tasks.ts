/**
 * Helpers for engine tests: a registered project on a real repository carrying workflow files,
 * task creation through the API, and waiting for states the way a client would (polling).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestApp } from './app.js';
import { waitFor } from './app.js';
import { gitRepo, type Repo } from './git.js';

export interface TaskJson {
  id: number;
  state: string;
  block_reason: string | null;
  block_detail: string | null;
  queued_reason: string | null;
  admit_not_before: string | null;
  branch_name: string;
  worktree_path: string | null;
  current_step: number;
  step_total: number;
  available_actions: string[];
  pause_requested: boolean;
  warnings?: string[];
  steps?: StepJson[];
  [key: string]: unknown;
}

export interface StepJson {
  id: number;
  step_index: number;
  step_id: string;
  state: string;
  attempt: number;
  failure_reason: string | null;
  skip_reason: string | null;
  exit_code: number | null;
  check_exit_code: number | null;
  result_summary: string;
  run_override: string | null;
  prompt_override: string | null;
  [key: string]: unknown;
}

/** Writes workflow files into the repository's .svc/workflows (project scope) and commits them. */
export function withWorkflows(repo: Repo, workflows: Record<string, string>): void {
  const dir = join(repo.path, '.svc', 'workflows');
  mkdirSync(dir, { recursive: true });
  for (const [name, yaml] of Object.entries(workflows))
    writeFileSync(join(dir, `${name}.yaml`), yaml);
  repo.commit('workflows');
}

export async function addProject(
  t: TestApp,
  workflows: Record<string, string> = {},
  body: Record<string, unknown> = {},
) {
  const repo = gitRepo();
  if (Object.keys(workflows).length > 0) withWorkflows(repo, workflows);
  const project = await t.json<{ id: number; name: string; path: string }>('POST', '/v1/projects', {
    path: repo.path,
    ...body,
  });
  return { repo, project };
}

/** `POST /v1/tasks` as JSON, answering the raw response: for tests that expect a refusal. */
export async function postTask(
  t: TestApp,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return t.api('POST', '/v1/tasks', body, { 'content-type': 'application/json', ...headers });
}

export async function createTask(
  t: TestApp,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<TaskJson> {
  const res = await postTask(t, body, headers);
  if (res.statusCode !== 201) throw new Error(`create → ${res.statusCode} ${res.body}`);
  return res.json() as TaskJson;
}

export async function getTask(t: TestApp, id: number): Promise<TaskJson> {
  return t.json<TaskJson>('GET', `/v1/tasks/${id}`);
}

export async function waitState(
  t: TestApp,
  id: number,
  state: string | string[],
  timeoutMs = 15_000,
): Promise<TaskJson> {
  const want = Array.isArray(state) ? state : [state];
  let last: TaskJson | null = null;
  try {
    return await waitFor(async () => {
      last = await getTask(t, id);
      return want.includes(last.state) ? last : null;
    }, timeoutMs);
  } catch {
    throw new Error(
      `task ${id} never reached ${want.join('|')}; last: ${JSON.stringify(last, null, 1)?.slice(0, 2000)}`,
    );
  }
}

export async function act(t: TestApp, id: number, action: string, body?: unknown) {
  return t.api(
    'POST',
    `/v1/tasks/${id}/${action}`,
    body,
    body === undefined ? {} : { 'content-type': 'application/json' },
  );
}

/** A one-step command workflow. */
export function commandWorkflow(name: string, run: string, extra = ''): string {
  return `name: ${name}\nsteps:\n  - id: run\n    type: command\n    run: ${JSON.stringify(run)}\n${extra}`;
}
