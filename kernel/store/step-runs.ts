/** The step_runs table: one row per attempt (SPEC §2.2). */
import type { Db } from './database.js';

export type StepRunState =
  | 'running'
  | 'succeeded'
  | 'failed'
  | 'interrupted'
  | 'skipped'
  | 'approved'
  | 'rejected'
  | 'stopped';

export interface StepRunRow {
  id: number;
  task_id: number;
  step_index: number;
  step_id: string;
  step_name: string;
  step_type: string;
  group_id: string | null;
  attempt: number;
  iteration: number;
  loop_item: string | null;
  loop_total: number | null;
  state: StepRunState;
  agent: string | null;
  model: string | null;
  effort: string | null;
  pid: number | null;
  proc_started_at: string | null;
  exit_code: number | null;
  check_exit_code: number | null;
  failure_reason: string | null;
  skip_reason: string | null;
  result_summary: string;
  transcript_path: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  input_wait_ms: number;
  prompt_override: string | null;
  run_override: string | null;
  counts_retry: number;
  session_id: string | null;
  /** The worktree's HEAD when the attempt started and when it finished (decision 171). */
  head_before: string | null;
  head_after: string | null;
  started_at: string;
  finished_at: string | null;
}

export type StepRunInsert = Omit<StepRunRow, 'id'>;

/** A new row with every optional column empty; callers name what they know. */
export function newStepRun(
  r: Pick<
    StepRunRow,
    | 'task_id'
    | 'step_index'
    | 'step_id'
    | 'step_name'
    | 'step_type'
    | 'attempt'
    | 'state'
    | 'started_at'
  > &
    Partial<StepRunInsert>,
): StepRunInsert {
  return {
    group_id: null,
    iteration: 0,
    loop_item: null,
    loop_total: null,
    agent: null,
    model: null,
    effort: null,
    pid: null,
    proc_started_at: null,
    exit_code: null,
    check_exit_code: null,
    failure_reason: null,
    skip_reason: null,
    result_summary: '',
    transcript_path: null,
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
    input_wait_ms: 0,
    prompt_override: null,
    run_override: null,
    counts_retry: 0,
    session_id: null,
    head_before: null,
    head_after: null,
    finished_at: null,
    ...r,
  };
}

/** What serving a run's transcript reads of its row. */
export type TranscriptRun = Pick<
  StepRunRow,
  'id' | 'task_id' | 'agent' | 'state' | 'transcript_path'
>;

export type StepRunPatch = Partial<Omit<StepRunRow, 'id' | 'task_id'>>;

export class StepRunsTable {
  constructor(private readonly db: Db) {}

  insert(r: StepRunInsert): number {
    const keys = Object.keys(r);
    return Number(
      this.db
        .prepare(
          `INSERT INTO step_runs (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`,
        )
        .run(r).lastInsertRowid,
    );
  }

  update(id: number, patch: StepRunPatch): void {
    const keys = Object.keys(patch);
    if (keys.length === 0) return;
    this.db
      .prepare(
        `UPDATE step_runs SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @__id`,
      )
      .run({ ...patch, __id: id });
  }

  /** `update`, answering the row as written (`RETURNING`: one statement, not a write and a read). */
  updateReturning(id: number, patch: StepRunPatch): StepRunRow | undefined {
    const keys = Object.keys(patch);
    if (keys.length === 0) return this.get(id);
    return this.db
      .prepare(
        `UPDATE step_runs SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @__id RETURNING *`,
      )
      .get({ ...patch, __id: id }) as StepRunRow | undefined;
  }

  get(id: number): StepRunRow | undefined {
    return this.db.prepare('SELECT * FROM step_runs WHERE id = ?').get(id) as
      | StepRunRow
      | undefined;
  }

  /**
   * The columns a transcript page needs. A follower of a running step asks for page after page,
   * and `SELECT *` made all 35 columns into an object each time: these five take about a third
   * of that time (6 µs against 20 µs a read here).
   */
  transcriptOf(id: number): TranscriptRun | undefined {
    return this.db
      .prepare('SELECT id, task_id, agent, state, transcript_path FROM step_runs WHERE id = ?')
      .get(id) as TranscriptRun | undefined;
  }

  ofTask(taskId: number): StepRunRow[] {
    return this.db
      .prepare(
        'SELECT * FROM step_runs WHERE task_id = ? ORDER BY step_index, iteration, attempt, id',
      )
      .all(taskId) as StepRunRow[];
  }

  /** The task's most recent attempt (by insertion), any step. */
  newest(taskId: number): StepRunRow | undefined {
    // The id from an index over the task's rows, then that one row: `ORDER BY id DESC LIMIT 1`
    // read and sorted every row of the task (the runner asks before each step, issue 22).
    return this.db
      .prepare(
        'SELECT * FROM step_runs WHERE id = (SELECT MAX(id) FROM step_runs WHERE task_id = ?)',
      )
      .get(taskId) as StepRunRow | undefined;
  }

  atIndex(taskId: number, index: number): StepRunRow[] {
    return this.db
      .prepare('SELECT * FROM step_runs WHERE task_id = ? AND step_index = ? ORDER BY id')
      .all(taskId, index) as StepRunRow[];
  }

  open(taskId: number): StepRunRow[] {
    return this.db
      .prepare("SELECT * FROM step_runs WHERE task_id = ? AND state = 'running' ORDER BY id")
      .all(taskId) as StepRunRow[];
  }

  allOpen(): StepRunRow[] {
    return this.db
      .prepare("SELECT * FROM step_runs WHERE state = 'running' ORDER BY id")
      .all() as StepRunRow[];
  }

  maxId(taskId: number): number {
    return (
      this.db
        .prepare('SELECT COALESCE(MAX(id), 0) AS m FROM step_runs WHERE task_id = ?')
        .get(taskId) as { m: number }
    ).m;
  }

  lastAttempt(taskId: number, index: number, stepId: string, iteration: number): number {
    return (
      this.db
        .prepare(
          'SELECT COALESCE(MAX(attempt), 0) AS a FROM step_runs WHERE task_id = ? AND step_index = ? AND step_id = ? AND iteration = ?',
        )
        .get(taskId, index, stepId, iteration) as { a: number }
    ).a;
  }

  /** Failed attempts that count against the retry budget since the retry floor. */
  failuresSince(
    taskId: number,
    index: number,
    stepId: string,
    iteration: number,
    floor: number,
  ): number {
    return (
      this.db
        .prepare(
          "SELECT COUNT(*) AS n FROM step_runs WHERE task_id = ? AND step_index = ? AND step_id = ? AND iteration = ? AND id > ? AND state = 'failed' AND counts_retry = 1",
        )
        .get(taskId, index, stepId, iteration, floor) as { n: number }
    ).n;
  }

  /** Cost and tokens of every attempt of a task (null cost when none reported). */
  totals(taskId: number): { cost_usd: number | null; input_tokens: number; output_tokens: number } {
    return this.db
      .prepare(
        'SELECT SUM(cost_usd) AS cost_usd, COALESCE(SUM(input_tokens), 0) AS input_tokens, COALESCE(SUM(output_tokens), 0) AS output_tokens FROM step_runs WHERE task_id = ?',
      )
      .get(taskId) as { cost_usd: number | null; input_tokens: number; output_tokens: number };
  }
}
