/**
 * Discovery and loading of workflow files (SPEC §2.7): built-ins, and the `*.yaml`/`*.yml` files
 * of a scope directory, sorted by path. Directories are listed and files stat'ed on every view,
 * and a file is read again whenever its size, times or inode change (validation is cached by
 * content digest), so a change on disk is in force at once.
 */
import { readdirSync, readFileSync, type Stats, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import type { Config } from '../config/index.js';
import type { AgentValueSets } from '../plugin/index.js';
import { BUILTIN_WORKFLOWS } from './builtins.js';
import { digestOf, type WorkflowEntry } from './registry-entries.js';
import type { WorkflowScope } from './snapshot.js';
import { MAX_WORKFLOW_BYTES } from './source.js';
import type { TemplateChecker } from './templates.js';
import {
  type StepTypeSource,
  type ValidateOptions,
  validateWorkflowText,
  type WorkflowValidation,
} from './validate.js';

/** What loading needs of the registry's dependencies (WorkflowRegistryDeps). */
export interface WorkflowLoaderDeps {
  config: { current(): Config };
  types: StepTypeSource;
  agentValues: () => AgentValueSets;
  checkTemplate?: TemplateChecker;
}

/** How long a workflow file must have been unchanged before its stamp stands for its bytes. */
const SETTLED_MS = 2000;

/**
 * What stands for a file's or a directory's content while it holds — size, times and inode — and
 * whether it has been still long enough for that: one changed within the clock's granularity could
 * change again unseen by its stamp (git's "racily clean" entries), so it is read again until still.
 */
function stampOf(st: Stats): { stamp: string; settled: boolean } {
  return {
    stamp: `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`,
    settled: Date.now() - Math.max(st.mtimeMs, st.ctimeMs) > SETTLED_MS,
  };
}

/** Keeps `value` under `key` only when what it was read from had settled; a thousand at most. */
function remember<V>(cache: Map<string, V>, key: string, value: V, settled: boolean): void {
  if (!settled) {
    cache.delete(key);
    return;
  }
  if (cache.size > 1000) cache.clear();
  cache.set(key, value);
}

/** The directory a project keeps its workflows in. */
export function projectWorkflowsDir(repo: string): string {
  return join(repo, '.svc', 'workflows');
}

export function isWorkflowFile(name: string): boolean {
  return /\.ya?ml$/.test(name) && !name.startsWith('.');
}

function stem(file: string): string {
  return basename(file).replace(/\.ya?ml$/, '');
}

export class WorkflowLoader {
  private readonly cache = new Map<string, WorkflowValidation>();
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
  /**
   * Each scope directory's workflow file names, kept while its times and inode hold (and it had
   * been still for SETTLED_MS): adding, removing or renaming an entry changes them. Every task
   * creation lists two directories, and the project's is most often missing — a `readdirSync`
   * that threw ENOENT, an exception and its stack each time (issue 22 point 2).
   */
  private readonly listings = new Map<string, { stamp: string; names: string[] }>();

  constructor(private readonly deps: WorkflowLoaderDeps) {}

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
  optionsKey(opts: ValidateOptions): string {
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

  builtins(opts: ValidateOptions, optionsKey: string): WorkflowEntry[] {
    if (this.builtinEntries?.optionsKey !== optionsKey)
      this.builtinEntries = {
        optionsKey,
        entries: BUILTIN_WORKFLOWS.map((b) =>
          this.load(b.text, 'builtin', null, null, null, opts, optionsKey),
        ),
      };
    return this.builtinEntries.entries;
  }

  /** The workflow files of `dir`, sorted; none when it is missing or cannot be read. */
  private list(dir: string): string[] {
    try {
      const st = statSync(dir, { throwIfNoEntry: false });
      if (!st?.isDirectory()) {
        this.listings.delete(dir);
        return [];
      }
      const { stamp, settled } = stampOf(st);
      const known = this.listings.get(dir);
      if (known?.stamp === stamp) return known.names;
      const names = readdirSync(dir).filter(isWorkflowFile).sort();
      remember(this.listings, dir, { stamp, names }, settled);
      return names;
    } catch {
      this.listings.delete(dir);
      return [];
    }
  }

  /** Reads one scope directory: `*.yaml` and `*.yml`, sorted by path. */
  readDir(
    dir: string,
    scope: 'global' | 'project',
    root: string,
    projectId: number | null,
    opts: ValidateOptions,
    optionsKey: string,
  ): WorkflowEntry[] {
    const names = this.list(dir);
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
        ({ stamp, settled } = stampOf(st));
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
      remember(this.files, file, { stamp, optionsKey, entry }, settled);
      out.push(entry);
    }
    return out;
  }
}
