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

export class ProjectsTable {
  constructor(private readonly db: Db) {}

  insert(p: ProjectInsert): ProjectRow {
    const info = this.db
      .prepare(
        `INSERT INTO projects (name, path, default_branch, default_workflow, max_parallel_tasks, branch_template, created_at, updated_at)
         VALUES (@name, @path, @default_branch, @default_workflow, @max_parallel_tasks, @branch_template, @created_at, @updated_at)`,
      )
      .run(p);
    return { id: Number(info.lastInsertRowid), ...p };
  }

  get(id: number): ProjectRow | undefined {
    return this.db.prepare('SELECT * FROM projects WHERE id = ?').get(id) as ProjectRow | undefined;
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
  }

  delete(id: number): void {
    this.db.prepare('DELETE FROM projects WHERE id = ?').run(id);
  }
}
