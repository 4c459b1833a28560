/** Runs the `svc` CLI in-process against `env`, capturing what it prints and its exit code. */
import { main } from '../../cli/index.js';
import { gitRepo, type Repo } from './git.js';
import { withWorkflows } from './tasks.js';

export async function cli(env: NodeJS.ProcessEnv, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, env, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/**
 * `svc task create --project 1 --json` with a title, workflow and any further flags (`--field k=v`);
 * fails unless the CLI exits 0.
 */
export async function cliCreateTask(
  env: NodeJS.ProcessEnv,
  title: string,
  workflow: string,
  ...flags: string[]
): Promise<{ id: number; [key: string]: unknown }> {
  const r = await cli(
    env,
    'task',
    'create',
    '--project',
    '1',
    '--title',
    title,
    '--workflow',
    workflow,
    ...flags,
    '--json',
  );
  if (r.code !== 0) throw new Error(`task create → exit ${r.code}: ${r.err}`);
  return JSON.parse(r.out);
}

/**
 * A fresh repository holding `workflows` (name → YAML) in `.svc/workflows`, added as a project
 * with `svc project add` and any further flags; fails unless the CLI exits 0.
 */
export async function cliProject(
  env: NodeJS.ProcessEnv,
  workflows: Record<string, string>,
  ...flags: string[]
): Promise<Repo> {
  const repo = gitRepo();
  withWorkflows(repo, workflows);
  const r = await cli(env, 'project', 'add', repo.path, ...flags);
  if (r.code !== 0) throw new Error(`project add → exit ${r.code}: ${r.err}`);
  return repo;
}
