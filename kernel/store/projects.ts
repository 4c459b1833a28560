/** The projects table. */
import type { Db } from './database.js';

export interface ProjectRow {
  id: number;
  name: string;
  path: string;
  default_branch: string;
  default_workflow: string | null;
  max_parallel_tasks: number | null;
  branch_template: string | null;
  created_at: string;
  updated_at: string;
}

export type ProjectInsert = Omit<ProjectRow, 'id'>;

const KEPT = new WeakMap<Db, Map<number, Readonly<ProjectRow>>>();

export class ProjectsTable {
  /**
   * Rows by id, as last committed: a one-step task read its project six times (the scheduler, the
   * runner, every state change's notify envelope) and projects change only by a person's hand
   * (issue 22). This table is the only writer of `projects`; a write empties the cache, and a read
   * inside a transaction does not fill it, so a row written and rolled back is never kept. The
   * rows handed out are frozen: a caller changing one would change every later reader's. Every
   * table on one connection shares the cache (the scheduler holds a table of its own).
   */
  private readonly rows: Map<number, Readonly<ProjectRow>>;

  constructor(private readonly db: Db) {
    const kept = KEPT.get(db) ?? new Map<number, Readonly<ProjectRow>>();
    KEPT.set(db, kept);
    this.rows = kept;
  }

  insert(p: ProjectInsert): ProjectRow {
    const info = this.db
      .prepare(
        `INSERT INTO projects (name, path, default_branch, default_workflow, max_parallel_tasks, branch_template, created_at, updated_at)
         VALUES (@name, @path, @default_branch, @default_workflow, @max_parallel_tasks, @branch_template, @created_at, @updated_at)`,
      )
      .run(p);
    this.rows.clear();
    return { id: Number(info.lastInsertRowid), ...p };
  }

  get(id: number): ProjectRow | undefined {
    const kept = this.rows.get(id);
    if (kept) return kept;
    const row = this.db.prepare('SELECT * FROM projects WHERE id = ?').get(id) as
      | ProjectRow
      | undefined;
    if (!row || this.db.inTransaction) return row;
    Object.freeze(row);
    this.rows.set(id, row);
    return row;
  }

  byName(name: string): ProjectRow | undefined {
    return this.db.prepare('SELECT * FROM projects WHERE name = ?').get(name) as
      | ProjectRow
      | undefined;
  }

  byPath(path: string): ProjectRow | undefined {
    return this.db.prepare('SELECT * FROM projects WHERE path = ?').get(path) as
      | ProjectRow
      | undefined;
  }

  list(): ProjectRow[] {
    return this.db.prepare('SELECT * FROM projects ORDER BY id').all() as ProjectRow[];
  }

  update(id: number, patch: Partial<ProjectInsert>): void {
    const keys = Object.keys(patch);
    if (keys.length === 0) return;
    this.db
      .prepare(`UPDATE projects SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`)
      .run({ ...patch, id });
    this.rows.clear();
  }

  delete(id: number): void {
    this.db.prepare('DELETE FROM projects WHERE id = ?').run(id);
    this.rows.clear();
  }
}
