/**
 * The task list's row texts, kept between requests (issue 22 point 3, decision 250).
 *
 * A list row is a function of what the database holds — the task's columns, its attempts' spend
 * and loop progress, its project's name, the open chat linking it, its pull request's last look —
 * and of the configuration (the loop ceiling); one kind of row also reads its worktree (a blocked
 * or gated task: a merge in progress there withholds `skip`), and its text is never kept.
 * Building and stringifying a row costs about 25 µs, most of it reading 55 columns into
 * JavaScript; a page of 1,000 rows costs 20 ms, which is what kept the whole list at three times a
 * bare server's walk of the same bytes. So the texts are kept, keyed by task id, and a page builds
 * only the rows it has not got.
 *
 * What could make a text stale is caught where it is written, not where it is read: temporary
 * triggers on this connection (they live and die with it; nothing is added to the schema) call
 * back into this process on every insert, update and delete of `tasks`, `step_runs`, `chats` and
 * `forge_pull_state` to forget the task concerned, and on any change of `projects` to forget every
 * text. Every write the daemon makes goes through its one connection (better-sqlite3 is
 * synchronous; the engine, chats, forge and scheduler share it), so no code path can change a row
 * without its text being forgotten — including ones written after this file. A configuration
 * reload and a new view decorator forget every text. Forgetting too much (a write rolled back) only
 * costs a rebuild.
 *
 * Bounded: past MAX_CHARS of kept text the oldest texts go first, so a history far larger than any
 * walk still lists, building what it must.
 */
import type { Db } from '../store/index.js';

/**
 * 16 Mi characters: 16 MB of memory, or 32 MB if every text held a character beyond Latin-1 (V8
 * keeps such a string at two bytes a character). The bench's 10,000-task list is 11.8 Mi.
 */
const MAX_CHARS = 16 * 1024 * 1024;

/** The SQL function the triggers call, with a task id, or null for "every task". */
const FORGET = 'svc_list_text_forget';

/** Caches by connection (a test may build two engines on one store); one function serves all. */
const byDb = new WeakMap<Db, Set<ListTexts>>();

function watch(db: Db, texts: ListTexts): void {
  const known = byDb.get(db);
  if (known) {
    known.add(texts);
    return;
  }
  const caches = new Set([texts]);
  byDb.set(db, caches);
  db.function(FORGET, { deterministic: false, varargs: false }, (id: unknown) => {
    for (const c of caches) {
      if (typeof id === 'number' || typeof id === 'bigint') c.forget(Number(id));
      else c.clear();
    }
    return null;
  });
  db.exec(TRIGGERS);
}

/** One trigger per table and kind of write; `IF NOT EXISTS` because they outlive one cache. */
const TRIGGERS = [
  ['tasks', 'INSERT', 'NEW.id'],
  ['tasks', 'UPDATE', 'OLD.id'],
  ['tasks', 'DELETE', 'OLD.id'],
  ['step_runs', 'INSERT', 'NEW.task_id'],
  ['step_runs', 'UPDATE', 'NEW.task_id'],
  ['step_runs', 'DELETE', 'OLD.task_id'],
  ['chats', 'INSERT', 'NEW.linked_task_id'],
  ['chats', 'UPDATE', 'NEW.linked_task_id'],
  ['chats', 'UPDATE', 'OLD.linked_task_id'],
  ['chats', 'DELETE', 'OLD.linked_task_id'],
  ['forge_pull_state', 'INSERT', 'NEW.task_id'],
  ['forge_pull_state', 'UPDATE', 'NEW.task_id'],
  ['forge_pull_state', 'DELETE', 'OLD.task_id'],
  ['projects', 'UPDATE', 'NULL'],
  ['projects', 'DELETE', 'NULL'],
]
  .map(([table, op, id], i) => {
    // A chat with no task, like a task id that is null, forgets nothing (`WHEN`).
    const when = id === 'NULL' ? '' : `WHEN ${id} IS NOT NULL`;
    return `CREATE TEMP TRIGGER IF NOT EXISTS svc_list_text_${i} AFTER ${op} ON main.${table}
      ${when} BEGIN SELECT ${FORGET}(${id}); END;`;
  })
  .join('\n');

export class ListTexts {
  private readonly texts = new Map<number, string>();
  private chars = 0;

  private watching = false;

  /** `maxChars`: the bound (MAX_CHARS; a test gives a small one). */
  constructor(
    private readonly db: Db,
    private readonly maxChars = MAX_CHARS,
  ) {}

  /**
   * The texts of `ids`, in their order: those kept, and those `build` makes for the rest. `build`
   * is handed the ids missing (in page order) and a `put(id, text, keep)` to call for each, and
   * runs synchronously, so no write comes between reading a row and keeping its text (and every id
   * of the page, read just before, still has its row). `keep` false: the text serves this page
   * only (its row shows something the database does not hold).
   */
  page(
    ids: readonly number[],
    build: (missing: number[], put: (id: number, text: string, keep: boolean) => void) => void,
  ): string[] {
    // The triggers go in before the first text is kept, not at start-up: until a list is asked
    // for, no text can go stale.
    if (!this.watching) {
      watch(this.db, this);
      this.watching = true;
    }
    const out = ids.map((id) => this.texts.get(id));
    const places = new Map<number, number>();
    for (const [i, text] of out.entries()) if (text === undefined) places.set(ids[i] as number, i);
    if (places.size > 0)
      build([...places.keys()], (id, text, keep) => {
        out[places.get(id) as number] = text;
        if (keep) this.keep(id, text);
      });
    return out as string[];
  }

  forget(id: number): void {
    const text = this.texts.get(id);
    if (text === undefined) return;
    this.texts.delete(id);
    this.chars -= text.length;
  }

  clear(): void {
    this.texts.clear();
    this.chars = 0;
  }

  private keep(id: number, text: string): void {
    this.forget(id);
    if (text.length > this.maxChars) return;
    this.texts.set(id, text);
    this.chars += text.length;
    // Oldest first: a Map iterates in insertion order.
    for (const [old, t] of this.texts) {
      if (this.chars <= this.maxChars) break;
      this.texts.delete(old);
      this.chars -= t.length;
    }
  }
}
