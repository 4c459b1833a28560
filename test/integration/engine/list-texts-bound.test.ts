// Decision 250: the kept list texts are bounded. Past the bound the oldest texts go first, a text
// larger than the bound is served but never kept, and a write forgets the text of its task only.
// The cache sits on a real database with the store's schema (its triggers need the tables).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ListTexts } from '../../../kernel/engine/list-texts.js';
import { openDatabase } from '../../../kernel/store/index.js';
import { tempDir } from '../../support/tmp.js';

/** Serves `ids` through `texts`, building `text(id)` for what is missing; the ids built. */
function serve(texts: ListTexts, ids: number[], text: (id: number) => string) {
  const built: number[] = [];
  const out = texts.page(ids, (missing, put) => {
    for (const id of missing) {
      built.push(id);
      put(id, text(id), true);
    }
  });
  expect(out).toEqual(ids.map(text));
  return built;
}

describe('kept list texts', () => {
  it('keep at most their bound, oldest out first; a text over it is served and not kept', () => {
    const db = openDatabase(join(tempDir(), 'svc.db'));
    const texts = new ListTexts(db, 100);
    const forty = (id: number) => `${id}`.padEnd(40, '.');
    expect(serve(texts, [1, 2], forty)).toEqual([1, 2]);
    expect(serve(texts, [1, 2], forty)).toEqual([]);
    // A third text of 40 makes 120: the oldest (1) goes.
    expect(serve(texts, [3], forty)).toEqual([3]);
    expect(serve(texts, [2, 3], forty)).toEqual([]);
    expect(serve(texts, [1], forty)).toEqual([1]);
    // Larger than the bound: served every time, never kept, and nothing else is pushed out.
    const huge = (id: number) => (id === 9 ? 'x'.repeat(101) : forty(id));
    expect(serve(texts, [9, 3, 1], huge)).toEqual([9]);
    expect(serve(texts, [9, 3, 1], huge)).toEqual([9]);
    db.close();
  });

  it('a write forgets the text of the task it touches, and only that one', () => {
    const db = openDatabase(join(tempDir(), 'svc.db'));
    const texts = new ListTexts(db);
    const plain = (id: number) => `task ${id}`;
    serve(texts, [1, 2, 3], plain);
    // No such task row exists: the trigger fires on the statement's rows, so nothing is forgotten.
    db.prepare("UPDATE tasks SET title = 'x' WHERE id = 2").run();
    expect(serve(texts, [1, 2, 3], plain)).toEqual([]);
    // A chat linked to task 2 (no chat row needs a real task): only 2 is built again.
    db.exec(`INSERT INTO projects (name, path, default_branch, created_at, updated_at)
             VALUES ('p', '/nowhere', 'main', 't', 't')`);
    db.prepare(
      `INSERT INTO chats (project_id, title, agent, model, effort, state, linked_task_id,
         worktree_path, branch_name, base_branch, existing_branch, restricted, created_at, updated_at)
       VALUES (1, 'c', 'claude', '', '', 'idle', 2, '', '', 'main', 0, 0, 't', 't')`,
    ).run();
    expect(serve(texts, [1, 2, 3], plain)).toEqual([2]);
    // A project's change forgets every text (each row shows its project's name).
    db.exec("UPDATE projects SET name = 'q'");
    expect(serve(texts, [1, 2, 3], plain)).toEqual([1, 2, 3]);
    db.close();
  });
});
