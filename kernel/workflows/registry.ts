/**
 * The workflow registry (SPEC §2.7): built-ins, global files `{config_dir}/workflows/*.yaml` and
 * project files `<repo>/.svc/workflows/*.yaml`, seen per project. This file is the lookup: a view
 * of what one project's tasks can see, the list, one entry, its definition and its snapshot.
 * Discovery and loading (files read again only when their stamp changes, validation cached by
 * digest) are registry-loading.ts; the entries, their ranking and precedence (decision 029) are
 * registry-entries.ts; the rows the routes answer with are registry-rows.ts; the chokidar watch
 * announcing changes as `workflow.registry_changed` events is registry-watch.ts.
 */
import { notFound } from '../errors.js';
import { clipText } from '../input/index.js';
import { currentHost, type HostPlatform } from './format.js';
import {
  type ProjectLookup,
  type ProjectRef,
  type RankedEntry,
  type RegistryView,
  rank,
  type WorkflowDefinitionView,
  type WorkflowListRow,
} from './registry-entries.js';
import {
  projectWorkflowsDir,
  WorkflowLoader,
  type WorkflowLoaderDeps,
} from './registry-loading.js';
import { definitionView, listRow } from './registry-rows.js';
import { RegistryWatch, type RegistryWatchDeps } from './registry-watch.js';
import { resolveSnapshot, type SnapshotResult } from './snapshot.js';
import type { ValidateOptions, WorkflowValidation } from './validate.js';

export interface WorkflowRegistryDeps extends WorkflowLoaderDeps, RegistryWatchDeps {
  host?: HostPlatform;
}

export class WorkflowRegistry {
  private readonly loader: WorkflowLoader;
  private readonly watches: RegistryWatch;
  readonly host: HostPlatform;

  constructor(private readonly deps: WorkflowRegistryDeps) {
    this.host = deps.host ?? currentHost();
    this.loader = new WorkflowLoader(deps);
    this.watches = new RegistryWatch(deps);
  }

  get projects(): ProjectLookup {
    return this.deps.projects;
  }

  /** The options files are validated with: the live step types, ceilings, image and agents. */
  validateOptions(): ValidateOptions {
    return this.loader.validateOptions();
  }

  /** Validates a text with the live options (cached by digest and options). */
  validate(
    text: string,
    opts: ValidateOptions = this.validateOptions(),
    known?: { digest: string; optionsKey: string },
  ): WorkflowValidation {
    return this.loader.validate(text, opts, known);
  }

  /** The project of `projectId`; throws 404 for an unknown id. */
  project(projectId: number): ProjectRef {
    const project = this.deps.projects.get(projectId);
    if (!project) throw notFound(`project ${projectId} not found`);
    return project;
  }

  /** Every entry a task in `projectId` (or, without it, any task outside projects) can see. */
  view(projectId?: number): RegistryView {
    const opts = this.validateOptions();
    const optionsKey = this.loader.optionsKey(opts);
    const project = projectId === undefined ? null : this.project(projectId);
    const loaded = [
      ...this.loader.builtins(opts, optionsKey),
      ...this.loader.readDir(
        this.deps.paths.workflowsDir,
        'global',
        this.deps.paths.configDir,
        null,
        opts,
        optionsKey,
      ),
      ...(project
        ? this.loader.readDir(
            projectWorkflowsDir(project.path),
            'project',
            project.path,
            project.id,
            opts,
            optionsKey,
          )
        : []),
    ];
    if (project && this.watches.watching) this.watchProject(project);
    return { ...rank(loaded, this.host), project };
  }

  list(projectId?: number): WorkflowListRow[] {
    return this.view(projectId).entries.map((e) => this.row(e));
  }

  /** The shadowing winner of `name`; 404 when the view has none. */
  entry(name: string, projectId?: number): RankedEntry {
    const found = this.view(projectId).find(name);
    if (!found) throw notFound(`no workflow named ${clipText(name)}`);
    return found;
  }

  definition(name: string, projectId?: number): WorkflowDefinitionView {
    return definitionView(this.entry(name, projectId), this.host);
  }

  /**
   * The engine's entry point at task creation: the named workflow in the project's view, with
   * includes spliced (SPEC §4.4 rule 4). 404 when the view has no such name; refusals come back
   * as `ok: false` findings for the caller's 400.
   */
  snapshot(name: string, projectId?: number): SnapshotResult {
    const view = this.view(projectId);
    const root = view.find(name);
    if (!root) throw notFound(`no workflow named ${clipText(name)}`);
    return resolveSnapshot(root, view, { ...this.validateOptions(), host: this.host });
  }

  row(e: RankedEntry): WorkflowListRow {
    return listRow(e, this.deps.types, this.host);
  }

  /** Remembers a write of ours so the watch does not announce it again. */
  noteOwnWrite(file: string, text: string): void {
    this.watches.noteOwnWrite(file, text);
  }

  /**
   * Announces a change to the registry as a `workflow.registry_changed` event (API writes call it
   * directly; the watch calls it for edits made by anything else). `files` are absolute.
   */
  announce(scope: 'global' | 'project', projectId: number | null, files: string[]): void {
    this.watches.announce(scope, projectId, files);
  }

  /** `{config_dir}/workflows`, the global scope's directory. */
  get globalDir(): string {
    return this.deps.paths.workflowsDir;
  }

  /** Watches the global directory and every known project's; later projects are added on first view. */
  watch(): void {
    this.watches.watch();
  }

  /** Starts watching a project's workflows (idempotent). The projects store may call it on create. */
  watchProject(project: ProjectRef): void {
    this.watches.watchProject(project);
  }

  async close(): Promise<void> {
    await this.watches.close();
  }
}
