/**
 * Which project a command means (issue 19 point 5, decision 203): `--project` takes an id or a
 * registered name; without it, the registered project whose folder holds the current directory
 * (the deepest, for nested checkouts), or the project of the task whose worktree it is. Commands
 * that need a project and find none say which projects there are.
 */
import { realpathSync } from 'node:fs';
import { sep } from 'node:path';
import type { Client } from './client.js';
import type { CommandContext } from './command.js';
import { UsageError } from './format.js';

export interface ProjectRow {
  id: number;
  name: string;
  path: string;
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

const inside = (dir: string, root: string) => dir === root || dir.startsWith(root + sep);

function listing(projects: ProjectRow[]): string {
  if (projects.length === 0) return 'no project is registered yet: svc project add <path>';
  return `registered: ${projects.map((p) => `${p.id} ${p.name} (${p.path})`).join(', ')}`;
}

/** The project `raw` names: an id that exists, else a name; a UsageError naming the choices. */
export function matchProject(projects: ProjectRow[], raw: string, option: string): ProjectRow {
  const byId = /^[1-9]\d*$/.test(raw) ? projects.find((p) => p.id === Number(raw)) : undefined;
  const found = byId ?? projects.find((p) => p.name === raw);
  if (!found)
    throw new UsageError(`${option} ${raw}: no project has that id or name; ${listing(projects)}`);
  return found;
}

/** The project whose folder holds `cwd`, or whose task's worktree does; null when none. */
export async function projectAt(
  client: Client,
  projects: ProjectRow[],
  cwd: string,
  worktreesDir: string,
): Promise<ProjectRow | null> {
  const here = real(cwd);
  const holding = projects
    .filter((p) => inside(here, real(p.path)))
    .sort((a, b) => real(b.path).length - real(a.path).length);
  if (holding[0]) return holding[0];
  const wt = real(worktreesDir);
  if (!inside(here, wt) || here === wt) return null;
  const id = Number(here.slice(wt.length + 1).split(sep)[0]);
  if (!Number.isInteger(id) || id <= 0) return null;
  try {
    const task = await client.get<{ project_id: number }>(`/v1/tasks/${id}`);
    return projects.find((p) => p.id === task.project_id) ?? null;
  } catch {
    return null;
  }
}

/**
 * The project id for `--project` (or `option`): given, resolved by id or name; absent, the
 * current directory's project. `required: false` answers undefined when absent and none holds
 * the directory; `useCwd: false` never looks at the directory (a filter that means "all").
 */
export async function resolveProject(
  ctx: CommandContext,
  opts: { option?: string; raw?: unknown; required: boolean; useCwd?: boolean },
): Promise<number | undefined> {
  const option = opts.option ?? '--project';
  const raw = opts.raw === undefined ? ctx.options.project : opts.raw;
  if (raw !== undefined && typeof raw !== 'string') throw new UsageError(`${option} takes a value`);
  // An id is passed through as typed: the daemon answers for an unknown one (exit 4).
  if (typeof raw === 'string' && /^[1-9]\d*$/.test(raw)) return Number(raw);
  if (typeof raw !== 'string' && opts.useCwd === false) return undefined;
  const client = ctx.client();
  const projects = await client.get<ProjectRow[]>('/v1/projects');
  if (typeof raw === 'string') return matchProject(projects, raw, option).id;
  const cwd = process.cwd();
  const here = await projectAt(client, projects, cwd, ctx.paths.worktreesDir);
  if (here) return here.id;
  if (!opts.required) return undefined;
  throw new UsageError(
    `no ${option} given and ${cwd} is in no registered project; give ${option} <id or name> (${listing(projects)})`,
  );
}
