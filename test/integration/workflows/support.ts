/** Helpers for workflow integration tests: files in the global scope and projects on real repos. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestApp } from '../../support/app.js';
import { gitRepo, type Repo } from '../../support/git.js';

export function writeGlobal(t: TestApp, file: string, text: string): string {
  mkdirSync(t.paths.workflowsDir, { recursive: true });
  const path = join(t.paths.workflowsDir, file);
  writeFileSync(path, text);
  return path;
}

export function writeProject(repo: Repo, file: string, text: string): string {
  const dir = join(repo.path, '.svc', 'workflows');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, file);
  writeFileSync(path, text);
  return path;
}

/** A project on a fresh repository, registered through the API. */
export async function project(t: TestApp): Promise<{ id: number; repo: Repo }> {
  const repo = gitRepo();
  const p = await t.json<{ id: number }>('POST', '/v1/projects', { path: repo.path });
  return { id: p.id, repo };
}

export function wf(name: string, ...stepLines: string[]): string {
  const steps =
    stepLines.length > 0 ? stepLines : ['  - id: go', '    type: command', '    run: make'];
  return [`name: ${name}`, 'steps:', ...steps, ''].join('\n');
}

export interface Row {
  name: string;
  scope: string;
  project_id: number | null;
  file: string | null;
  version: string;
  digest: string;
  status: string;
  shadowed_by: { scope: string; file: string | null } | null;
  errors: Array<{ path: string; code: string; line?: number; message: string }>;
  warnings: Array<{ path: string; code: string; message: string }>;
  platforms: string[];
  platform_supported: boolean;
  steps: Array<{ id: string; name: string; type: string; agent?: string }>;
  fields: Array<{ name: string }>;
  includes: string[];
  requires_input: boolean;
  description: string;
}

export async function list(t: TestApp, projectId?: number): Promise<Row[]> {
  const q = projectId === undefined ? '' : `?project_id=${projectId}`;
  return (await t.json<{ workflows: Row[] }>('GET', `/v1/workflows${q}`)).workflows;
}
