/**
 * The workflow registry (SPEC §2.7): built-ins, global files `{config_dir}/workflows/*.yaml` and
 * project files `<repo>/.svc/workflows/*.yaml`, seen per project. Directories are listed and files
 * stat'ed on every request, and a file is read again whenever its size, times or inode change
 * (validation is cached by content digest), so a change on disk is in force at once; a chokidar watch announces changes as `workflow.registry_changed` events so
 * clients know to refresh. Precedence: project over global over built-in by name; within a scope
 * the first file by path wins and later ones are listed as `duplicate` (decision 029).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import type { Paths } from '../daemon/paths.js';
import { notFound } from '../errors.js';
import type { EventLog } from '../events/index.js';
import type { Finding } from '../input/index.js';
import { clipText } from '../input/index.js';
import type { AgentValueSets } from '../plugin/index.js';
import { BUILTIN_WORKFLOWS } from './builtins.js';
import type { FieldDecl } from './fields.js';
import { currentHost, type HostPlatform, platformAdmits, type WorkflowDef } from './format.js';
import {
  resolveSnapshot,
  type SnapshotResult,
  type WorkflowScope,
  type WorkflowSource,
} from './snapshot.js';
import { MAX_WORKFLOW_BYTES } from './source.js';
import type { TemplateChecker } from './templates.js';
import { childrenOf, isRecord, withDerivedIds } from './tree.js';
import {
  type StepTypeSource,
  type ValidateOptions,
  validateWorkflowText,
  type WorkflowValidation,
} from './validate.js';

/** A project as the registry needs it; the projects store implements the lookup. */
export interface ProjectRef {
  id: number;
  name: string;
  /** The repository root. */
  path: string;
}

export interface ProjectLookup {
  /** The project, or undefined when no project has that id. */
  get(id: number): ProjectRef | undefined;
  list(): ProjectRef[];
}

/** No projects: the lookup in force until the projects store registers the real one. */
export const NO_PROJECTS: ProjectLookup = { get: () => undefined, list: () => [] };

export type EntryStatus = 'ok' | 'invalid' | 'unsupported' | 'shadowed' | 'duplicate';

/** One workflow file (or built-in) as loaded. */
export interface WorkflowEntry extends WorkflowSource {
  project_id: number | null;
  /** Absolute path; null for a built-in. */
  file: string | null;
  /** Opaque precondition token of the bytes (the `version` of PATCH). */
  version: string;
  /** The file's bytes as text; null when refused unread (over 1 MiB). */
  text: string | null;
}

/** An entry ranked within one view. */
export interface RankedEntry extends WorkflowEntry {
  status: EntryStatus;
  winner: boolean;
  /** The entry that wins this name, for a shadowed or duplicate one. */
  shadowed_by: { scope: WorkflowScope; file: string | null } | null;
}

/** `GET /v1/workflows` row (decision 029). */
export interface WorkflowListRow {
  name: string;
  scope: WorkflowScope;
  project_id: number | null;
  file: string | null;
  version: string;
  digest: string;
  status: EntryStatus;
  shadowed_by: { scope: WorkflowScope; file: string | null } | null;
  description: string;
  platforms: string[];
  platform_supported: boolean;
  fields: FieldDecl[];
  steps: Array<{ id: string; name: string; type: string; agent?: string }>;
  includes: string[];
  requires_input: boolean;
  errors: Finding[];
  warnings: Finding[];
}

/** `GET /v1/workflows/definition` body. */
export interface WorkflowDefinitionView {
  name: string;
  scope: WorkflowScope;
  project_id: number | null;
  file: string | null;
  version: string;
  digest: string;
  status: EntryStatus;
  platforms: string[];
  platform_supported: boolean;
  errors: Finding[];
  warnings: Finding[];
  /** The file as authored (steps as written, `defaults` separate); null when it does not validate. */
  definition: WorkflowDef | null;
}

export interface RegistryView {
  project: ProjectRef | null;
  /** Every entry of the view, ranked. */
  entries: RankedEntry[];
  /** The shadowing winner of `name`. */
  find(name: string): RankedEntry | undefined;
}

export interface WorkflowRegistryDeps {
  paths: Pick<Paths, 'configDir' | 'workflowsDir'>;
  config: { current(): Config };
  types: StepTypeSource;
  projects: ProjectLookup;
  agentValues: () => AgentValueSets;
  events?: EventLog;
  logger?: Logger;
  host?: HostPlatform;
  checkTemplate?: TemplateChecker;
  /** Debounce of change events. */
  eventDelayMs?: number;
}

const SCOPE_RANK: Record<WorkflowScope, number> = { project: 3, global: 2, builtin: 1 };

/** How long a workflow file must have been unchanged before its stamp stands for its bytes. */
const SETTLED_MS = 2000;

export function digestOf(text: string | Buffer): { digest: string; version: string } {
  const hex = createHash('sha256').update(text).digest('hex');
  return { digest: `sha256:${hex}`, version: hex.slice(0, 32) };
}

/** The directory a project keeps its workflows in. */
export function projectWorkflowsDir(repo: string): string {
  return join(repo, '.svc', 'workflows');
}

function isWorkflowFile(name: string): boolean {
  return /\.ya?ml$/.test(name) && !name.startsWith('.');
}

function stem(file: string): string {
  return basename(file).replace(/\.ya?ml$/, '');
}

export class WorkflowRegistry {
  private readonly cache = new Map<string, WorkflowValidation>();
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly pending = new Map<string, { timer: NodeJS.Timeout; files: Set<string> }>();
  /** Digests of our own writes, so the watch does not announce them a second time. */
  private readonly ownWrites = new Map<string, string>();
  private watching = false;
  /**
   * Each workflow file as last loaded, kept while its size, times and inode hold (and it had been
   * still for SETTLED_MS when read), so a view — every task creation takes one — reads and digests
   * only what changed (issue 22 point 2).
   */
  private readonly files = new Map<
    string,
    { stamp: string; optionsKey: string; entry: WorkflowEntry }
  >();
  private builtinEntries: { optionsKey: string; entries: WorkflowEntry[] } | null = null;
  readonly host: HostPlatform;

  constructor(private readonly deps: WorkflowRegistryDeps) {
    this.host = deps.host ?? currentHost();
  }

  get projects(): ProjectLookup {
    return this.deps.projects;
  }

  /** The options files are validated with: the live step types, ceilings, image and agents. */
  validateOptions(): ValidateOptions {
    const c = this.deps.config.current();
    return {
      types: this.deps.types,
      limits: {
        loop_max_iterations: c.loop.max_iterations,
        parallel_max_parallel: c.parallel.max_parallel,
        fan_out_max_tasks: c.fan_out.max_tasks,
        fan_out_max_depth: c.fan_out.max_depth,
        include_max_depth: c.include.max_depth,
      },
      containerImage: c.container.image,
      agents: this.deps.agentValues(),
      ...(this.deps.checkTemplate ? { checkTemplate: this.deps.checkTemplate } : {}),
    };
  }

  /** What validation depends on besides the text, as a cache key. */
  private optionsKey(opts: ValidateOptions): string {
    return JSON.stringify({
      ...opts,
      types: this.deps.types.listStepTypes().map((t) => t.meta.type),
      checkTemplate: undefined,
    });
  }

  /** Validates a text with the live options (cached by digest and options). */
  validate(
    text: string,
    opts: ValidateOptions = this.validateOptions(),
    known?: { digest: string; optionsKey: string },
  ): WorkflowValidation {
    const key = `${known?.digest ?? digestOf(text).digest}\0${known?.optionsKey ?? this.optionsKey(opts)}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const result = validateWorkflowText(text, opts);
    if (this.cache.size > 1000) this.cache.clear();
    this.cache.set(key, result);
    return result;
  }

  private load(
    text: string,
    scope: WorkflowScope,
    file: string | null,
    relFile: string | null,
    projectId: number | null,
    opts: ValidateOptions,
    optionsKey = this.optionsKey(opts),
  ): WorkflowEntry {
    const { digest, version } = digestOf(text);
    const validation = this.validate(text, opts, { digest, optionsKey });
    return {
      name: validation.declaredName ?? (file ? stem(file) : ''),
      scope,
      project_id: projectId,
      file,
      relFile,
      text,
      digest,
      version,
      validation,
    };
  }

  private builtins(opts: ValidateOptions, optionsKey: string): WorkflowEntry[] {
    if (this.builtinEntries?.optionsKey !== optionsKey)
      this.builtinEntries = {
        optionsKey,
        entries: BUILTIN_WORKFLOWS.map((b) =>
          this.load(b.text, 'builtin', null, null, null, opts, optionsKey),
        ),
      };
    return this.builtinEntries.entries;
  }

  /** Reads one scope directory: `*.yaml` and `*.yml`, sorted by path. */
  private readDir(
    dir: string,
    scope: 'global' | 'project',
    root: string,
    projectId: number | null,
    opts: ValidateOptions,
    optionsKey: string,
  ): WorkflowEntry[] {
    let names: string[];
    try {
      names = readdirSync(dir).filter(isWorkflowFile).sort();
    } catch {
      return [];
    }
    const out: WorkflowEntry[] = [];
    for (const name of names) {
      const file = join(dir, name);
      const relFile = relative(root, file).split('\\').join('/');
      let size: number;
      let stamp: string;
      let settled: boolean;
      try {
        const st = statSync(file);
        if (!st.isFile()) continue;
        size = st.size;
        stamp = `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
        // A file changed within the clock's granularity could change again unseen by its stamp
        // (git's "racily clean" entries): it is read again until it has been still a while.
        settled = Date.now() - Math.max(st.mtimeMs, st.ctimeMs) > SETTLED_MS;
      } catch {
        continue;
      }
      const known = this.files.get(file);
      if (
        known?.stamp === stamp &&
        known.optionsKey === optionsKey &&
        known.entry.relFile === relFile &&
        known.entry.project_id === projectId &&
        known.entry.scope === scope
      ) {
        out.push(known.entry);
        continue;
      }
      if (size > MAX_WORKFLOW_BYTES) {
        const { digest, version } = digestOf(`${size}:${statSync(file).mtimeMs}`);
        out.push({
          name: stem(file),
          scope,
          project_id: projectId,
          file,
          relFile,
          text: null,
          digest,
          version,
          validation: {
            declaredName: null,
            definition: null,
            fields: [],
            errors: [
              {
                path: '',
                code: 'too_large',
                message: `${name} is ${size} bytes, over the 1 MiB (${MAX_WORKFLOW_BYTES} bytes) a workflow file may have; it is not read`,
              },
            ],
            warnings: [],
          },
        });
        continue;
      }
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      const entry = this.load(text, scope, file, relFile, projectId, opts, optionsKey);
      if (settled) {
        if (this.files.size > 1000) this.files.clear();
        this.files.set(file, { stamp, optionsKey, entry });
      } else this.files.delete(file);
      out.push(entry);
    }
    return out;
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
    const optionsKey = this.optionsKey(opts);
    const project = projectId === undefined ? null : this.project(projectId);
    const loaded = [
      ...this.builtins(opts, optionsKey),
      ...this.readDir(
        this.deps.paths.workflowsDir,
        'global',
        this.deps.paths.configDir,
        null,
        opts,
        optionsKey,
      ),
      ...(project
        ? this.readDir(
            projectWorkflowsDir(project.path),
            'project',
            project.path,
            project.id,
            opts,
            optionsKey,
          )
        : []),
    ];
    if (project && this.watching) this.watchProject(project);
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
    const e = this.entry(name, projectId);
    const def = e.validation.definition;
    return {
      name: e.name,
      scope: e.scope,
      project_id: e.project_id,
      file: e.file,
      version: e.version,
      digest: e.digest,
      status: e.status,
      platforms: platformsOf(e),
      platform_supported: platformAdmits(platformsOf(e), this.host),
      errors: e.validation.errors,
      warnings: e.validation.warnings,
      definition: def,
    };
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
    const def = e.validation.definition;
    const platforms = platformsOf(e);
    const steps = def ? withDerivedIds(def.steps, this.deps.types) : [];
    return {
      name: e.name,
      scope: e.scope,
      project_id: e.project_id,
      file: e.file,
      version: e.version,
      digest: e.digest,
      status: e.status,
      shadowed_by: e.shadowed_by,
      description: def?.description ?? '',
      platforms,
      platform_supported: platformAdmits(platforms, this.host),
      fields: e.validation.fields,
      steps: steps.map((s) => {
        const row: { id: string; name: string; type: string; agent?: string } = {
          id: s.id as string,
          name: typeof s.name === 'string' ? s.name : (s.id as string),
          type: s.type,
        };
        const agent = s.type === 'agent' ? (s.agent ?? def?.defaults?.agent) : undefined;
        if (typeof agent === 'string') row.agent = agent;
        return row;
      }),
      includes: def ? includesOf(def.steps, this.deps.types) : [],
      requires_input: e.validation.fields.some((f) => f.required && f.default === undefined),
      errors: e.validation.errors,
      warnings: e.validation.warnings,
    };
  }

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

  /** `{config_dir}/workflows`, the global scope's directory. */
  get globalDir(): string {
    return this.deps.paths.workflowsDir;
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

function platformsOf(e: WorkflowEntry): string[] {
  return e.validation.definition?.platforms ?? [];
}

function includesOf(steps: readonly unknown[], types: StepTypeSource): string[] {
  const out = new Set<string>();
  const visit = (s: unknown) => {
    if (!isRecord(s)) return;
    if (s.type === 'include' && typeof s.workflow === 'string') out.add(s.workflow);
    for (const kid of childrenOf(s, types)) {
      if (kid.kind === 'list') kid.steps.forEach(visit);
    }
  };
  steps.forEach(visit);
  return [...out];
}

/** Ranks loaded entries: the winner per name, shadowed and duplicate losers, statuses. */
export function rank(loaded: readonly WorkflowEntry[], host: HostPlatform): RegistryView {
  const byName = new Map<string, WorkflowEntry[]>();
  for (const e of loaded) byName.set(e.name, [...(byName.get(e.name) ?? []), e]);
  const entries: RankedEntry[] = [];
  const winners = new Map<string, RankedEntry>();
  for (const [name, group] of byName) {
    const ordered = [...group].sort(
      (a, b) =>
        SCOPE_RANK[b.scope] - SCOPE_RANK[a.scope] || (a.file ?? '').localeCompare(b.file ?? ''),
    );
    const [first, ...rest] = ordered as [WorkflowEntry, ...WorkflowEntry[]];
    const status: EntryStatus =
      first.validation.errors.length > 0
        ? 'invalid'
        : platformAdmits(first.validation.definition?.platforms, host)
          ? 'ok'
          : 'unsupported';
    const winner: RankedEntry = { ...first, status, winner: true, shadowed_by: null };
    winners.set(name, winner);
    entries.push(winner);
    for (const e of rest) {
      entries.push({
        ...e,
        status: e.scope === first.scope ? 'duplicate' : 'shadowed',
        winner: false,
        shadowed_by: { scope: first.scope, file: first.file },
      });
    }
  }
  entries.sort(
    (a, b) =>
      a.name.localeCompare(b.name) ||
      Number(b.winner) - Number(a.winner) ||
      SCOPE_RANK[b.scope] - SCOPE_RANK[a.scope] ||
      (a.file ?? '').localeCompare(b.file ?? ''),
  );
  return {
    project: null,
    entries,
    find: (name) => winners.get(name),
  };
}
