/**
 * What one attempt is given and what it hands back (attempt.ts runs it): apart from the steps of
 * the attempt so each of their files can name them without importing the others.
 */
import type { Clock } from '../clock/index.js';
import type { Config } from '../config/index.js';
import type { DiskGuard } from '../disk/index.js';
import type { EventLog } from '../events/index.js';
import type { StepHost, StepOutcome, StepType, StepTypes } from '../plugin/index.js';
import type { Project } from '../projects/index.js';
import type { StepRunRow, StepRunsTable, Store, TaskRow } from '../store/index.js';
import type { InputBroker } from './input.js';
import type { StepDef, WorkflowSnapshot } from './model.js';

export interface AttemptDeps {
  /** The step types, asked which steps run an agent (the task's prompt; decision 225). */
  registry: StepTypes;
  input: InputBroker;
  /** What other rooms lend a step (StepContext.agents, .mcp; decision 224). */
  host: StepHost;
  store: Store;
  /** Disk-full mode and the reserve (decision 180). */
  disk: DiskGuard;
  runs: StepRunsTable;
  events: EventLog;
  clock: Clock;
  config: () => Config;
  transcriptsDir: string;
  /** This data directory's attempt-marker prefix (decision 182); absent, processes go unmarked. */
  procMark?: string;
}

export interface AttemptSpec {
  task: TaskRow;
  project: Project;
  snapshot: WorkflowSnapshot;
  step: StepDef;
  stepType: StepType;
  index: number;
  iteration: number;
  item: string | null;
  groupId: string | null;
  /** A loop's extent for the iteration this attempt belongs to. */
  loopTotal?: number;
  /** Name of the top-level step at this index (a sub-step row shows its group's name). */
  topName: string;
  context: Record<string, unknown>;
  signal: AbortSignal;
  counts_retry: boolean;
  override?: { prompt_override?: string; run_override?: string };
  /** Journals the pid of the spawned process on the row (crash recovery finds orphans with it). */
  onSpawn?: (pid: number, startTicks: string | null) => void;
  /**
   * Runs inside the transaction that records the attempt's end, so what the caller makes of it
   * (advance, block, done) commits with it: one transaction per transition (decision 235).
   */
  onSettled?: (result: AttemptResult) => void;
}

export interface AttemptResult {
  outcome: StepOutcome;
  row: StepRunRow;
}
