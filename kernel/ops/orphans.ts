/**
 * Orphans and their cleanup (SPEC §2.9 maintenance body, §4.1 gc rules, decision 061): entries
 * directly under {data_dir}/worktrees and {data_dir}/transcripts that no row claims.
 *
 * Claims are read from the schema itself: every table with a `worktree_path` column claims that
 * directory, every table with a `transcript_path` column claims the first path segment under the
 * transcripts directory, and a task row claims `worktrees/{id}` while it is not archived and
 * `transcripts/{id}` while it exists. So a chat table added later protects its own worktrees
 * without a change here, and a worktree being created at admission (before its path is written)
 * is never taken for an orphan.
 *
 * GC leaves alone what it cannot judge safely: a dirty worktree (`worktree_dirty`), a directory
 * that is not the top of a git work tree or whose status git cannot read (`dirty_unknown`) — both
 * only without `force` — and anything that is not a directory (`not_a_directory`, always). It
 * deletes no branch and modifies no row; a failed removal is recorded and the run continues.
 */
import { existsSync, lstatSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { Paths } from '../daemon/paths.js';
import { gitRaw, isDirty, pruneWorktrees, removeWorktree } from '../git/index.js';
import type { Db } from '../store/index.js';
import { treeBytes } from './sizes.js';

export type OrphanKind = 'worktree' | 'transcript';
export type SkipReason = 'worktree_dirty' | 'dirty_unknown' | 'not_a_directory';

export interface OrphanEntry {
  path: string;
  kind: OrphanKind;
  /** The task id the name stands for; null when the name is not an id. */
  task_id: number | null;
  bytes: number;
  /** Why this run leaves the entry (null: it goes, or would go on a dry run). */
  skip_reason: SkipReason | null;
  error: string | null;
  removed: boolean;
}

export interface Mismatch {
  task_id: number;
  path: string;
  state: string;
}

export interface MaintenanceBody {
  orphans: OrphanEntry[];
  /** Rows whose worktree_path directory is gone. Reported only. */
  mismatches: Mismatch[];
  /** Bytes of every orphan listed. */
  bytes: number;
  /** Orphans actually removed (0 on a dry run). */
  reclaimed: number;
  reclaimed_bytes: number;
  dry_run: boolean;
  force: boolean;
}

interface Claims {
  worktrees: Set<string>;
  transcripts: Set<string>;
}

function columnTables(db: Db, column: string): string[] {
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .pluck()
    .all() as string[];
  return tables.filter((t) =>
    (db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(t) as string[]).includes(
      column,
    ),
  );
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

function taskIdOf(name: string): number | null {
  return /^[1-9]\d{0,15}$/.test(name) ? Number(name) : null;
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Whether a directory is a clean worktree we may remove; null reasons mean it may go. */
async function judgeWorktree(path: string): Promise<SkipReason | null> {
  // `git status` inside a plain directory answers for whatever repository encloses it, so first
  // make sure the directory is itself the top of a work tree.
  const top = await gitRaw(path, ['rev-parse', '--show-toplevel'])
    .then((r) => (r.code === 0 ? r.stdout.trim() : null))
    .catch(() => null);
  if (top === null || realOr(top) !== realOr(path)) return 'dirty_unknown';
  const dirty = await isDirty(path).catch(() => null);
  if (dirty === null) return 'dirty_unknown';
  return dirty ? 'worktree_dirty' : null;
}

/** The repository a linked worktree belongs to, when git can still tell. */
async function ownerRepo(worktree: string): Promise<string | null> {
  const r = await gitRaw(worktree, ['rev-parse', '--path-format=absolute', '--git-common-dir'])
    .then((x) => (x.code === 0 ? x.stdout.trim() : null))
    .catch(() => null);
  if (!r) return null;
  const repo = basename(r) === '.git' ? dirname(r) : r;
  return existsSync(repo) ? repo : null;
}

async function removeWorktreeDir(path: string): Promise<void> {
  const repo = await ownerRepo(path);
  if (repo) {
    // Through git first, so the repository forgets the worktree; the branch stays. The git
    // helpers queue this behind any task's worktree add in the same repository.
    await removeWorktree(repo, path, true).catch(() => null);
  }
  if (existsSync(path)) rmSync(path, { recursive: true, force: true });
  if (repo) await pruneWorktrees(repo).catch(() => null);
}

export class Reclaimer {
  constructor(
    private readonly db: () => Db,
    private readonly paths: Pick<Paths, 'worktreesDir' | 'transcriptsDir'>,
  ) {}

  private claims(): Claims {
    const db = this.db();
    const worktrees = new Set<string>();
    const transcripts = new Set<string>();
    for (const t of columnTables(db, 'worktree_path')) {
      for (const p of db
        .prepare(`SELECT worktree_path FROM ${quote(t)} WHERE worktree_path IS NOT NULL`)
        .pluck()
        .all() as string[])
        worktrees.add(p);
    }
    for (const t of columnTables(db, 'transcript_path')) {
      for (const p of db
        .prepare(
          `SELECT DISTINCT transcript_path FROM ${quote(t)} WHERE transcript_path IS NOT NULL`,
        )
        .pluck()
        .all() as string[]) {
        const rel = relative(this.paths.transcriptsDir, p);
        if (rel && !rel.startsWith('..')) transcripts.add(rel.split(sep)[0] as string);
      }
    }
    const rows = db.prepare('SELECT id, state FROM tasks').all() as Array<{
      id: number;
      state: string;
    }>;
    for (const r of rows) {
      transcripts.add(String(r.id));
      if (r.state !== 'archived') worktrees.add(join(this.paths.worktreesDir, String(r.id)));
    }
    return { worktrees, transcripts };
  }

  private candidates(claims: Claims): Array<{ path: string; kind: OrphanKind; name: string }> {
    const out: Array<{ path: string; kind: OrphanKind; name: string }> = [];
    const list = (dir: string) => {
      try {
        return readdirSync(dir).sort(
          (a, b) => (taskIdOf(a) ?? Infinity) - (taskIdOf(b) ?? Infinity) || a.localeCompare(b),
        );
      } catch {
        return [];
      }
    };
    for (const name of list(this.paths.worktreesDir)) {
      const path = join(this.paths.worktreesDir, name);
      if (!claims.worktrees.has(path)) out.push({ path, kind: 'worktree', name });
    }
    for (const name of list(this.paths.transcriptsDir)) {
      if (!claims.transcripts.has(name))
        out.push({ path: join(this.paths.transcriptsDir, name), kind: 'transcript', name });
    }
    return out;
  }

  /** Number of unclaimed entries: one query and two directory listings, for `/v1/info`. */
  count(): number {
    return this.candidates(this.claims()).length;
  }

  /** Rows whose worktree directory is gone (reported, never changed). */
  mismatches(): Mismatch[] {
    const rows = this.db()
      .prepare(
        'SELECT id, worktree_path, state FROM tasks WHERE worktree_path IS NOT NULL ORDER BY id',
      )
      .all() as Array<{ id: number; worktree_path: string; state: string }>;
    return rows
      .filter((r) => !existsSync(r.worktree_path))
      .map((r) => ({ task_id: r.id, path: r.worktree_path, state: r.state }));
  }

  /** Every orphan with its size and why a plain (unforced) gc would leave it. */
  async scan(): Promise<OrphanEntry[]> {
    const out: OrphanEntry[] = [];
    for (const c of this.candidates(this.claims())) {
      let skip: SkipReason | null = null;
      if (!isDirectory(c.path)) skip = 'not_a_directory';
      else if (c.kind === 'worktree') skip = await judgeWorktree(c.path);
      out.push({
        path: c.path,
        kind: c.kind,
        task_id: taskIdOf(c.name),
        bytes: await treeBytes(c.path),
        skip_reason: skip,
        error: null,
        removed: false,
      });
    }
    return out;
  }

  /** GET /v1/maintenance/orphans: the body of a dry run that removes nothing. */
  async list(): Promise<MaintenanceBody> {
    return this.gc({ dry_run: true, force: false });
  }

  /** POST /v1/maintenance/gc. `force` also takes dirty and unjudgeable worktrees, never a non-directory. */
  async gc(
    opts: { dry_run?: boolean; force?: boolean; kinds?: OrphanKind[] } = {},
  ): Promise<MaintenanceBody> {
    const dryRun = opts.dry_run === true;
    const force = opts.force === true;
    const orphans = (await this.scan()).filter((o) => !opts.kinds || opts.kinds.includes(o.kind));
    let reclaimed = 0;
    let reclaimedBytes = 0;
    for (const o of orphans) {
      if (force && (o.skip_reason === 'worktree_dirty' || o.skip_reason === 'dirty_unknown'))
        o.skip_reason = null;
      if (o.skip_reason || dryRun) continue;
      // Claims may have changed while we walked sizes (a task admitted meanwhile): ask again.
      const still = this.candidates(this.claims()).some((c) => c.path === o.path);
      if (!still) {
        o.error = 'claimed by a task since the scan; left alone';
        continue;
      }
      try {
        if (o.kind === 'worktree') await removeWorktreeDir(o.path);
        else rmSync(o.path, { recursive: true, force: true });
        if (existsSync(o.path)) throw new Error(`${o.path} is still there after removal`);
        o.removed = true;
        reclaimed++;
        reclaimedBytes += o.bytes;
      } catch (err) {
        o.error = (err as Error).message;
      }
    }
    return {
      orphans,
      mismatches: this.mismatches(),
      bytes: orphans.reduce((n, o) => n + o.bytes, 0),
      reclaimed,
      reclaimed_bytes: reclaimedBytes,
      dry_run: dryRun,
      force,
    };
  }
}
