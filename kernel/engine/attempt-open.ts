/**
 * Opening an attempt: its transcript (on disk before anything names it), the HEAD it starts from,
 * its step run row and `step.started` in one transaction, and the transcript's first line. The row
 * exists before any process starts, so a crash always leaves a trace.
 */
import { join } from 'node:path';
import { formatMs, formatNs } from '../clock/index.js';
import { type Config, tryParseSize } from '../config/index.js';
import { worktreeHead } from '../git/index.js';
import { TranscriptWriter } from '../proc/index.js';
import { newStepRun } from '../store/index.js';
import type { AttemptDeps, AttemptSpec } from './attempt-types.js';
import type { StepDef } from './model.js';

/** An attempt whose row and transcript exist: what its later steps write to. */
export interface OpenAttempt {
  attempt: number;
  runId: number;
  transcript: TranscriptWriter;
  transcriptPath: string;
  /** Aborts once the transcript can take no more (its size limit, or a refused write). */
  latch: AbortController;
  /** transcript_max_bytes as read when the attempt opened (0: no limit). */
  maxBytes: number;
  /** The worktree's HEAD now; null without a worktree. */
  head: () => Promise<string | null>;
  /** The clock's time as transcript lines spell it. */
  ts: () => string;
  /**
   * Resolves once the transcript's first line is on disk, or could not be written (its writer's
   * `failure` then says why). No process of the attempt starts before (decision 258).
   */
  ready: () => Promise<void>;
}

export function transcriptFile(
  dir: string,
  taskId: number,
  index: number,
  step: StepDef,
  attempt: number,
  iteration: number,
  groupId: string | null,
): string {
  let name: string;
  if (iteration > 0) name = `${index}-i${iteration}-${step.id}-${attempt}.jsonl`;
  else if (groupId) name = `${index}-${step.id}-${attempt}.jsonl`;
  else name = `${index}-${attempt}.jsonl`;
  return join(dir, String(taskId), name);
}

export async function openAttempt(
  deps: AttemptDeps,
  spec: AttemptSpec,
  config: Config,
): Promise<OpenAttempt> {
  const { task, project, step, index, iteration } = spec;
  const attempt = deps.runs.lastAttempt(task.id, index, step.id, iteration) + 1;
  const now = formatMs(deps.clock.now());
  const transcriptPath = transcriptFile(
    deps.transcriptsDir,
    task.id,
    index,
    step,
    attempt,
    iteration,
    spec.groupId,
  );
  const maxBytes = tryParseSize(config.transcript_max_bytes) ?? 0;
  const latch = new AbortController();
  // Past transcript_max_bytes, or when the file system refuses a write (disk full), the latch
  // stops the step's process tree: output that cannot be kept is not produced blind. While the
  // daemon is in disk-full mode every line is refused, so each writer stops (decision 180).
  const transcript = new TranscriptWriter(
    transcriptPath,
    maxBytes,
    () => latch.abort(),
    (err) => {
      deps.disk.noteRefusal(err);
      latch.abort();
    },
    () => deps.disk.refusing(),
  );
  // What the attempt changed is diffed between the HEADs around it (decision 171); the first is
  // read before the row is written so the row carries it (one transaction, decision 235) — read
  // while the thread pool creates the transcript, since nothing runs in the worktree meanwhile.
  const head = async () =>
    task.worktree_path ? await worktreeHead(task.worktree_path, project.path) : null;
  const reading = head();
  // Handled where it is awaited below; marked so a failure meanwhile is not an unhandled rejection.
  reading.catch(() => {});
  // Created off the event loop (decision 232), and before the row that names it, so no reader
  // finds a run whose transcript is not there yet; one transaction opens the attempt.
  await transcript.opened();
  const headBefore = await reading;
  const runId = deps.store.tx(() => {
    const id = deps.runs.insert(
      newStepRun({
        task_id: task.id,
        step_index: index,
        step_id: step.id,
        step_name: spec.topName,
        step_type: step.type,
        group_id: spec.groupId,
        attempt,
        iteration,
        loop_item: spec.item,
        loop_total: spec.loopTotal ?? null,
        state: 'running',
        prompt_override: spec.override?.prompt_override ?? null,
        run_override: spec.override?.run_override ?? null,
        counts_retry: spec.counts_retry ? 1 : 0,
        transcript_path: transcriptPath,
        head_before: headBefore,
        started_at: now,
      }),
    );
    if (iteration === 0) {
      deps.events.append(
        'step.started',
        { project_id: task.project_id, task_id: task.id },
        {
          run_id: id,
          step_id: step.id,
          step_index: index,
          step_type: step.type,
          attempt,
        },
      );
    }
    return id;
  });

  const ts = () => formatNs(deps.clock.nowNs());
  transcript.annotate(
    'step_started',
    { task_id: task.id, step_id: step.id, attempt, step_type: step.type, run_id: runId },
    ts(),
  );
  const firstLine = transcript.bytes;
  const ready = () => transcript.durable(firstLine);
  return { attempt, runId, transcript, transcriptPath, latch, maxBytes, head, ts, ready };
}
