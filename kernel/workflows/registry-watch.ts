/**
 * The registry's watch (SPEC §2.7): a chokidar watch of the global directory and of every
 * project's `.svc/workflows` announces changes as `workflow.registry_changed` events (debounced),
 * so clients know to refresh; the registry itself needs no reload, it reads the disk on every
 * view. Writes through the API announce themselves and are not announced a second time.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, relative, sep } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import type { Logger } from 'pino';
import type { Paths } from '../daemon/paths.js';
import type { EventLog } from '../events/index.js';
import { digestOf, type ProjectLookup, type ProjectRef } from './registry-entries.js';
import { isWorkflowFile, projectWorkflowsDir } from './registry-loading.js';

/** What the watch needs of the registry's dependencies (WorkflowRegistryDeps). */
export interface RegistryWatchDeps {
  paths: Pick<Paths, 'configDir' | 'workflowsDir'>;
  projects: ProjectLookup;
  events?: EventLog;
  logger?: Logger;
  /** Debounce of change events. */
  eventDelayMs?: number;
}

export class RegistryWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly pending = new Map<string, { timer: NodeJS.Timeout; files: Set<string> }>();
  /** Digests of our own writes, so the watch does not announce them a second time. */
  private readonly ownWrites = new Map<string, string>();
  watching = false;

  constructor(private readonly deps: RegistryWatchDeps) {}

  /** Remembers a write of ours so the watch does not announce it again. */
  noteOwnWrite(file: string, text: string): void {
    this.ownWrites.set(file, digestOf(text).digest);
  }

  /**
   * Announces a change to the registry as a `workflow.registry_changed` event (API writes call it
   * directly; the watch calls it for edits made by anything else). `files` are absolute.
   */
  announce(scope: 'global' | 'project', projectId: number | null, files: string[]): void {
    const root =
      scope === 'global'
        ? this.deps.paths.configDir
        : (this.deps.projects.get(projectId ?? 0)?.path ?? '');
    const rel = files.map((f) => (root ? relative(root, f).split(sep).join('/') : f));
    this.deps.events?.append(
      'workflow.registry_changed',
      { project_id: projectId },
      { scope, project_id: projectId, files: rel },
    );
  }

  /** Watches the global directory and every known project's; later projects are added on first view. */
  watch(): void {
    if (this.watching) return;
    this.watching = true;
    this.watchDir(this.deps.paths.workflowsDir, 'global', null, this.deps.paths.configDir);
    for (const p of this.deps.projects.list()) this.watchProject(p);
  }

  /** Starts watching a project's workflows (idempotent). The projects store may call it on create. */
  watchProject(project: ProjectRef): void {
    if (!this.watching) return;
    this.watchDir(projectWorkflowsDir(project.path), 'project', project.id, project.path);
  }

  private watchDir(
    dir: string,
    scope: 'global' | 'project',
    projectId: number | null,
    root: string,
  ) {
    if (this.watchers.has(dir)) return;
    // Watch from the nearest existing ancestor within the scope root, so a directory created
    // later (`.svc/workflows` in a fresh repository) is seen; everything else is ignored early.
    const base = existsSync(dir) ? dir : existsSync(dirname(dir)) ? dirname(dir) : root;
    const relevant = (p: string) => p === dir || dir.startsWith(`${p}${sep}`) || dirname(p) === dir;
    const watcher = watch(base, {
      ignoreInitial: true,
      depth: 3,
      ignored: (p: string) => !relevant(p),
    });
    watcher.on('all', (_event, path) => {
      if (dirname(path) !== dir || !isWorkflowFile(basename(path))) return;
      this.changed(dir, scope, projectId, path);
    });
    watcher.on('error', (err) => this.deps.logger?.warn({ err, dir }, 'workflow watch failed'));
    this.watchers.set(dir, watcher);
  }

  private changed(
    dir: string,
    scope: 'global' | 'project',
    projectId: number | null,
    path: string,
  ): void {
    const own = this.ownWrites.get(path);
    if (own !== undefined) {
      let current: string | null = null;
      try {
        current = digestOf(readFileSync(path)).digest;
      } catch {}
      this.ownWrites.delete(path);
      if (current === own) return;
    }
    const slot = this.pending.get(dir);
    if (slot) {
      slot.files.add(path);
      return;
    }
    const files = new Set([path]);
    const timer = setTimeout(() => {
      this.pending.delete(dir);
      // A timer callback: a refused event write (a full disk) must not become an uncaught
      // exception; the registry itself is already current (decision 180).
      try {
        this.announce(scope, projectId, [...files].sort());
      } catch {}
    }, this.deps.eventDelayMs ?? 100);
    this.pending.set(dir, { timer, files });
  }

  async close(): Promise<void> {
    this.watching = false;
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    await Promise.all([...this.watchers.values()].map((w) => w.close()));
    this.watchers.clear();
  }
}
