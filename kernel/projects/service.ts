/**
 * Projects (SPEC §4.2): registered git repositories. Creation checks the path is the top level of
 * a non-bare repository, detects its default branch and names it from its folder; nothing in the
 * repository is modified. Deletion lives in the engine (it archives tasks first).
 */
import { basename, isAbsolute } from 'node:path';
import { type Clock, formatMs } from '../clock/index.js';
import { SvcError } from '../errors.js';
import type { EventLog } from '../events/index.js';
import { branchExists, checkRepository, detectDefaultBranch } from '../git/index.js';
import { clipText } from '../input/index.js';
import type { Store } from '../store/index.js';
import { type ProjectRow, ProjectsTable } from '../store/projects.js';
import type { CreateProject, PatchProject } from './schema.js';

export type Project = ProjectRow;

/** Extra validation of a project branch template (it must compile); wired by the kernel. */
export type TemplateCheck = (template: string) => string | null;

export class ProjectService {
  readonly table: ProjectsTable;
  checkBranchTemplate: TemplateCheck = () => null;

  constructor(
    private readonly store: Store,
    private readonly events: EventLog,
    private readonly clock: Clock,
  ) {
    this.table = new ProjectsTable(store.db);
  }

  list(): Project[] {
    return this.table.list();
  }

  get(id: number): Project | undefined {
    return this.table.get(id);
  }

  require(id: number): Project {
    const p = this.table.get(id);
    if (!p) throw new SvcError('not_found', `project ${id} not found`);
    return p;
  }

  /**
   * The project a request body's `project_id` names. Unlike `require`, a missing one is the
   * caller's bad field (`validation_failed`), not a missing resource: the URL itself was fine.
   */
  requireField(id: number): Project {
    const p = this.table.get(id);
    if (!p)
      throw new SvcError('validation_failed', `project_id ${id} does not name a project`, {
        field: 'project_id',
      });
    return p;
  }

  private async checkPath(path: string): Promise<string> {
    // Messages quote at most 200 bytes of the path (decision 189).
    const shown = clipText(path);
    if (!isAbsolute(path))
      throw new SvcError('validation_failed', `path must be absolute: ${shown}`, { field: 'path' });
    const check = await checkRepository(path);
    if (!check.ok || !check.toplevel)
      throw new SvcError(
        'validation_failed',
        (check.reason ?? `${path} is not a git repository`).split(path).join(shown),
        { field: 'path' },
      );
    return check.toplevel;
  }

  private async checkBranch(path: string, branch: string): Promise<void> {
    if (!(await branchExists(path, branch))) {
      throw new SvcError(
        'validation_failed',
        `default_branch ${branch} is not a local branch of ${path}`,
        {
          field: 'default_branch',
        },
      );
    }
  }

  private checkTemplate(template: string | null | undefined): void {
    if (!template) return;
    const problem = this.checkBranchTemplate(template);
    if (problem)
      throw new SvcError('validation_failed', `branch_template does not compile: ${problem}`, {
        field: 'branch_template',
      });
  }

  async create(body: CreateProject): Promise<Project> {
    const path = await this.checkPath(body.path);
    if (this.table.byPath(path)) {
      throw new SvcError(
        'validation_failed',
        `${path} is already registered as project ${this.table.byPath(path)?.id}`,
        {
          field: 'path',
        },
      );
    }
    const name = body.name ?? basename(path);
    if (this.table.byName(name))
      throw new SvcError('validation_failed', `a project named ${name} already exists`, {
        field: 'name',
      });
    let defaultBranch = body.default_branch;
    if (defaultBranch) await this.checkBranch(path, defaultBranch);
    else {
      defaultBranch = (await detectDefaultBranch(path)) ?? undefined;
      if (!defaultBranch) {
        throw new SvcError(
          'validation_failed',
          `cannot detect a default branch in ${path} (no commits?); pass default_branch`,
          {
            field: 'default_branch',
          },
        );
      }
    }
    this.checkTemplate(body.branch_template);
    const now = formatMs(this.clock.now());
    return this.store.tx(() => {
      const row = this.table.insert({
        name,
        path,
        default_branch: defaultBranch,
        default_workflow: body.default_workflow ?? null,
        max_parallel_tasks: body.max_parallel_tasks ?? null,
        branch_template: body.branch_template || null,
        created_at: now,
        updated_at: now,
      });
      this.events.append(
        'project.created',
        { project_id: row.id },
        { name: row.name, path: row.path },
      );
      return row;
    });
  }

  async patch(id: number, body: PatchProject): Promise<Project> {
    const current = this.require(id);
    const next: Partial<Project> = {};
    let path = current.path;
    if (body.path !== undefined && body.path !== current.path) {
      path = await this.checkPath(body.path);
      const other = this.table.byPath(path);
      if (other && other.id !== id)
        throw new SvcError(
          'validation_failed',
          `${path} is already registered as project ${other.id}`,
          { field: 'path' },
        );
      next.path = path;
    }
    if (body.name !== undefined && body.name !== current.name) {
      const other = this.table.byName(body.name);
      if (other && other.id !== id)
        throw new SvcError('validation_failed', `a project named ${body.name} already exists`, {
          field: 'name',
        });
      next.name = body.name;
    }
    const branch = body.default_branch ?? current.default_branch;
    if (body.default_branch !== undefined || next.path) await this.checkBranch(path, branch);
    if (body.default_branch !== undefined) next.default_branch = body.default_branch;
    if (body.default_workflow !== undefined) next.default_workflow = body.default_workflow;
    if (body.max_parallel_tasks !== undefined) next.max_parallel_tasks = body.max_parallel_tasks;
    if (body.branch_template !== undefined) {
      this.checkTemplate(body.branch_template);
      next.branch_template = body.branch_template || null;
    }
    if (Object.keys(next).length === 0) return current;
    next.updated_at = formatMs(this.clock.now());
    this.store.tx(() => {
      this.table.update(id, next);
      this.events.append(
        'project.updated',
        { project_id: id },
        {
          name: next.name ?? current.name,
          changed: Object.keys(next).filter((k) => k !== 'updated_at'),
        },
      );
    });
    return this.require(id);
  }
}
