/**
 * One attempt of one step: the step run row (opened before any process starts, so a crash always
 * leaves a trace), the transcript, the StepContext handed to the step type's `run`, and the row's
 * final fields. The outcome goes back to the runner, which applies it to the task.
 */
import { accessSync, constants, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { type Clock, formatMs, formatNs } from '../clock/index.js';
import { type Config, parseDuration, tryParseSize } from '../config/index.js';
import { type DiskGuard, diskFullCode } from '../disk/index.js';
import type { EventLog } from '../events/index.js';
import { worktreeHead } from '../git/index.js';
import type { StepContext, StepOutcome, StepType, StepTypes } from '../plugin/index.js';
import { resolveEnvironment, TranscriptWriter } from '../proc/index.js';
import type { Project } from '../projects/index.js';
import { effectiveContainer, hostAlias } from '../sandbox/index.js';
import {
  newStepRun,
  type StepRunRow,
  type StepRunsTable,
  type Store,
  type TaskRow,
} from '../store/index.js';
import { commitStepWork } from './commit.js';
import { taskView } from './context.js';
import type { InputBroker } from './input.js';
import {
  durationMs,
  fieldsOf,
  type StepDef,
  stepName,
  stepSetting,
  type WorkflowSnapshot,
} from './model.js';
import { carriesPrompt, PROMPT_LEAD } from './prompt.js';
import { renderPlain, renderShell } from './render.js';
import { spawnLogged } from './spawn.js';
import { recordWorktreeChanges } from './worktree-changes.js';

export interface AttemptDeps {
  /** The step types, asked which steps run an agent (the task's prompt; decision 225). */
  registry: StepTypes;
  input: InputBroker;
  /** Capabilities other rooms add for their step types (StepContext.services). */
  services: Record<string, unknown>;
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

function whichOn(program: string, env: Record<string, string>): string | null {
  if (program.includes('/')) {
    try {
      accessSync(program, constants.X_OK);
      return program;
    } catch {
      return null;
    }
  }
  for (const dir of (env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, program);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {}
  }
  return null;
}

export function svcVariables(
  task: TaskRow,
  project: Project,
  step: StepDef,
  index: number,
  attempt: number,
  runId: number,
): Record<string, string> {
  const vars: Record<string, string> = {
    SVC_TASK_ID: String(task.id),
    SVC_TASK_TITLE: task.title,
    SVC_PROJECT: project.name,
    SVC_PROJECT_ID: String(project.id),
    SVC_PROJECT_PATH: project.path,
    SVC_WORKTREE: task.worktree_path ?? '',
    SVC_BRANCH: task.branch_name ?? '',
    SVC_BASE_BRANCH: task.base_branch,
    SVC_WORKFLOW: task.workflow,
    SVC_STEP_ID: step.id,
    SVC_STEP_INDEX: String(index),
    SVC_STEP_ATTEMPT: String(attempt),
    SVC_RUN_ID: String(runId),
  };
  for (const [k, v] of Object.entries(fieldsOf(task))) {
    vars[`SVC_FIELD_${k.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`] = v;
  }
  return vars;
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

/** Timeout for a step: the step's own, then workflow defaults, then the config default for its kind. */
export function stepTimeoutMs(
  step: StepDef,
  snapshot: WorkflowSnapshot,
  config: Config,
  kind: 'agent' | 'command',
): number {
  const set = stepSetting(step, snapshot, 'timeout');
  if (typeof set === 'string') return durationMs(set);
  return parseDuration(
    kind === 'agent' ? config.defaults.agent_timeout : config.defaults.command_timeout,
  );
}

/** A step commits after success when its type takes `commit` and it (or `defaults`) sets it true. */
function commits(
  stepType: { meta: { schema: unknown } },
  step: StepDef,
  spec: { snapshot: WorkflowSnapshot },
): boolean {
  const shape = (stepType.meta.schema as { shape?: Record<string, unknown> }).shape;
  return (
    shape !== undefined && 'commit' in shape && stepSetting(step, spec.snapshot, 'commit') === true
  );
}

export async function runAttempt(deps: AttemptDeps, spec: AttemptSpec): Promise<AttemptResult> {
  const { task, project, step, index, iteration } = spec;
  const config = deps.config();
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
  // Created off the event loop (decision 232), and before the row that names it, so no reader
  // finds a run whose transcript is not there yet; one transaction opens the attempt.
  await transcript.opened();
  // What the attempt changed is diffed between the HEADs around it (decision 171); the first is
  // read before the row is written so the row carries it (one transaction, decision 235).
  const head = async () =>
    task.worktree_path ? await worktreeHead(task.worktree_path, project.path) : null;
  const headBefore = await head();
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

  const baseEnv = resolveEnvironment(config.environment);
  const container = effectiveContainer(config, spec.snapshot.defaults);
  let spawnCount = 0;
  const svcVars = svcVariables(task, project, step, index, attempt, runId);
  const signal = AbortSignal.any([spec.signal, latch.signal]);
  const context = { ...spec.context, Step: { ...(spec.context.Step as object), Attempt: attempt } };
  let outputTail = '';
  let current: { pauseTimeout(): void; resumeTimeout(): void } | null = null;
  let scratch: string | null = null;
  let inputWaitMs = 0;
  const effectiveDef: Record<string, unknown> = { ...step };
  // The task's own prompt, where its workflow does not place it (decision 198).
  if (carriesPrompt(task, spec.snapshot, step, deps.registry))
    effectiveDef.prompt = `${PROMPT_LEAD}${String(step.prompt ?? '')}`;
  if (spec.override?.prompt_override !== undefined)
    effectiveDef.prompt = spec.override.prompt_override;
  if (spec.override?.run_override !== undefined) effectiveDef.run = spec.override.run_override;

  const ctx: StepContext = {
    task: taskView(task, project, task.worktree_path ?? '', fieldsOf(task)),
    step: {
      id: step.id,
      name: stepName(step),
      type: step.type,
      index,
      attempt,
      iteration,
      item: spec.item,
      run_id: runId,
    },
    signal,
    platform: process.platform,
    timeoutMs: (kind) => stepTimeoutMs(step, spec.snapshot, config, kind),
    setting: (key) => stepSetting(step, spec.snapshot, key),
    checkTimeoutMs: () =>
      typeof step.check_timeout === 'string'
        ? durationMs(step.check_timeout)
        : parseDuration(config.defaults.command_timeout),
    render: (template, opts) =>
      opts?.shell
        ? renderShell(template, context)
        : { text: renderPlain(template, context), env: {} },
    which: (program) => whichOn(program, { ...baseEnv }),
    annotate: (kind, fields) => transcript.annotate(kind, fields, ts()),
    spawn: async (req) => {
      const r = await spawnLogged(
        {
          transcript,
          ts,
          clock: deps.clock,
          config,
          cwd: task.worktree_path ?? project.path,
          vars: svcVars,
          container,
          containerName: () => `svc-${task.id}-${runId}-${++spawnCount}`,
          mounts: [project.path, task.worktree_path ?? project.path],
          // Files the kernel wrote for the CLI (its MCP config) live in the scratch directory,
          // which the container must see at the same path (decision 126).
          readOnlyMounts: scratch ? [scratch] : [],
          signal,
          cancelled: () => spec.signal.aborted,
          mark: deps.procMark ? `${deps.procMark}.r${runId}` : undefined,
          onOutput: (line) =>
            deps.events.live({
              kind: 'command.output',
              task_id: task.id,
              data: { run_id: runId, ...line },
            }),
          onSpawn: (pid, startTicks) => {
            deps.runs.update(runId, { pid, proc_started_at: startTicks });
            spec.onSpawn?.(pid, startTicks);
          },
          onProcess: (proc) => {
            current = proc;
          },
        },
        req,
      );
      outputTail = r.tail;
      return r;
    },
    container: () =>
      container
        ? {
            runtime: container.runtime,
            image: container.image,
            host_alias: hostAlias(container.runtime),
            network: container.network,
          }
        : null,
    live: (kind, data) =>
      deps.events.live({ kind, task_id: task.id, data: { run_id: runId, ...data } }),
    scratchDir: () => {
      scratch ??= mkdtempSync(join(tmpdir(), `svc-run-${runId}-`));
      return scratch;
    },
    inputTimeoutMs: () => {
      const set = stepSetting(step, spec.snapshot, 'input_timeout');
      return typeof set === 'string'
        ? durationMs(set)
        : parseDuration(config.defaults.input_timeout);
    },
    requestInput: async (wait) => {
      current?.pauseTimeout();
      transcript.annotate('input_request', { pending: wait.pending }, ts());
      const r = await deps.input.wait(task.id, wait, ctx.inputTimeoutMs(), signal);
      inputWaitMs += r.waited_ms;
      deps.runs.update(runId, { input_wait_ms: inputWaitMs });
      transcript.annotate(r.kind === 'answered' ? 'input_response' : `input_${r.kind}`, {}, ts());
      current?.resumeTimeout();
      return r;
    },
    services: deps.services,
  };

  // Open and written off the event loop (decision 232): the first lines are on disk before
  // anything starts, so a transcript that cannot be written stops the attempt before its process.
  await transcript.flushed();
  let outcome: StepOutcome;
  try {
    if (!spec.stepType.run) throw new Error(`step type ${step.type} cannot run on its own`);
    // A transcript that could not even be opened: nothing is started (the verdict is below).
    outcome = transcript.failure
      ? { kind: 'cancelled' }
      : await spec.stepType.run(ctx, effectiveDef);
  } catch (err) {
    outcome = { kind: 'failed', reason: 'internal_error', message: (err as Error).message };
  }
  const unwritable = transcript.failure;
  if (unwritable && !spec.signal.aborted) {
    // Not retried at once: the disk that was full a moment ago still is. The task blocks with
    // the file system's own code in block_detail; `retry` once there is room (docs/reliability.md).
    // A full disk is named as such (decision 180); any other refusal (EIO, …) stays
    // transcript_unwritable (decision 131).
    const full = diskFullCode(unwritable);
    outcome = {
      kind: 'failed',
      reason: full ? 'disk_full' : 'transcript_unwritable',
      message: `the transcript ${transcriptPath} cannot be written (${unwritable.code ?? 'error'}: ${unwritable.message})`,
      noRetry: true,
    };
  } else if (transcript.latched && outcome.kind !== 'cancelled') {
    outcome = {
      kind: 'failed',
      reason: 'transcript_limit',
      message: `transcript passed transcript_max_bytes (${maxBytes} bytes)`,
    };
  } else if (spec.signal.aborted && outcome.kind !== 'awaiting_gate') {
    outcome = { kind: 'cancelled' };
  }
  if (outcome.kind === 'succeeded' && task.worktree_path && commits(spec.stepType, step, spec)) {
    // `commit: true` (decision 204): what the step left goes on the branch, or the step fails.
    const c = await commitStepWork(task.worktree_path, task, { id: step.id, attempt });
    if (!c.ok)
      outcome = { kind: 'failed', reason: 'commit_failed', message: c.message, noRetry: true };
    else if (c.commit) transcript.annotate('committed', { commit: c.commit, files: c.files }, ts());
  }
  // What the attempt left uncommitted, recorded before its outcome moves the task (decision 204).
  if (outcome.kind !== 'cancelled')
    await recordWorktreeChanges(deps.store.db, task.id, task.worktree_path);

  const usage = 'usage' in outcome ? outcome.usage : undefined;
  const finished = formatMs(deps.clock.now());
  const patch: Parameters<StepRunsTable['update']>[1] = {
    exit_code: 'exit_code' in outcome ? (outcome.exit_code ?? null) : null,
    check_exit_code: 'check_exit_code' in outcome ? (outcome.check_exit_code ?? null) : null,
    input_tokens: usage?.input_tokens ?? null,
    output_tokens: usage?.output_tokens ?? null,
    cost_usd: usage?.cost_usd ?? null,
    session_id: usage?.session_id ?? null,
  };
  switch (outcome.kind) {
    case 'succeeded':
      Object.assign(patch, {
        state: 'succeeded',
        result_summary: outcome.summary ?? outputTail,
        finished_at: finished,
      });
      break;
    case 'failed':
      Object.assign(patch, {
        state: 'failed',
        failure_reason: outcome.reason,
        result_summary: outcome.message ?? outputTail,
        finished_at: finished,
        counts_retry: outcome.noRetry ? 0 : spec.counts_retry ? 1 : 0,
      });
      break;
    case 'usage_limit':
      Object.assign(patch, {
        state: 'interrupted',
        failure_reason: 'usage_limit',
        result_summary: outcome.message ?? '',
        finished_at: finished,
        counts_retry: 0,
      });
      break;
    case 'cancelled':
      Object.assign(patch, {
        state: 'interrupted',
        failure_reason: 'canceled',
        finished_at: finished,
        counts_retry: 0,
      });
      break;
    case 'awaiting_gate':
      Object.assign(patch, { result_summary: outcome.instructions, transcript_path: null });
      break;
  }
  // A gate runs nothing in the worktree: it records no HEADs, so it has no diff of its own.
  if (outcome.kind === 'awaiting_gate') patch.head_before = null;
  else patch.head_after = await head();
  transcript.annotate(
    'step_finished',
    {
      state: patch.state ?? 'running',
      failure_reason: patch.failure_reason ?? null,
      exit_code: patch.exit_code,
      check_exit_code: patch.check_exit_code,
    },
    ts(),
  );
  // Every line is on disk before the row and the event say the attempt ended.
  await transcript.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
  if (outcome.kind === 'awaiting_gate') await rm(transcriptPath, { force: true });
  // The outcome is what must not be lost: on a full disk it may spend the reserve (decision 180).
  // The runner applies it (advance, block, done) inside, so a retry after the reserve is spent
  // records the attempt's end and the task's next move together, as the first try would have.
  return deps.disk.rescueTx(deps.store, () => {
    deps.runs.update(runId, patch);
    if (outcome.kind !== 'awaiting_gate' && iteration === 0) {
      deps.events.append(
        'step.finished',
        { project_id: task.project_id, task_id: task.id },
        {
          run_id: runId,
          step_id: step.id,
          step_index: index,
          attempt,
          state: patch.state,
          failure_reason: patch.failure_reason ?? null,
        },
      );
    }
    const result = { outcome, row: deps.runs.get(runId) as StepRunRow };
    spec.onSettled?.(result);
    return result;
  });
}

/** Closes an open row (gate rows on approve/reject/skip, rows orphaned by cancel or a crash). */
export function closeRow(
  runs: StepRunsTable,
  row: StepRunRow,
  state: StepRunRow['state'],
  clock: Clock,
  fields: Partial<StepRunRow> = {},
): void {
  runs.update(row.id, { state, finished_at: formatMs(clock.now()), counts_retry: 0, ...fields });
}
