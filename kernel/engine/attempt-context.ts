/**
 * The StepContext one attempt hands its step type's `run`: everything a step may touch (rendering,
 * spawning under the environment policy and kill rules, the transcript, live output, waiting for
 * a human, the hosts other rooms lend it), bound to this attempt's row and transcript. The state
 * the context gathers while the step runs (its output tail, its scratch directory) is read back
 * when the attempt closes.
 */
import { accessSync, constants, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { type Config, parseDuration } from '../config/index.js';
import type { StepContext } from '../plugin/index.js';
import { resolveEnvironment } from '../proc/index.js';
import type { Project } from '../projects/index.js';
import { effectiveContainer, hostAlias } from '../sandbox/index.js';
import type { TaskRow } from '../store/index.js';
import type { OpenAttempt } from './attempt-open.js';
import type { AttemptDeps, AttemptSpec } from './attempt-types.js';
import { taskView } from './context.js';
import {
  durationMs,
  fieldsOf,
  type StepDef,
  stepName,
  stepSetting,
  type WorkflowSnapshot,
} from './model.js';
import { renderPlain, renderShell } from './render.js';
import { spawnLogged } from './spawn.js';

/** The context and what it saw while the step ran. */
export interface AttemptContext {
  ctx: StepContext;
  /** The last lines of the step's latest process (the summary when the step gives none). */
  outputTail(): string;
  /** The scratch directory the step asked for, if it did (removed when the attempt closes). */
  scratch(): string | null;
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

export function buildStepContext(
  deps: AttemptDeps,
  spec: AttemptSpec,
  config: Config,
  open: OpenAttempt,
): AttemptContext {
  const { task, project, step, index, iteration } = spec;
  const { attempt, runId, transcript, ts } = open;
  const baseEnv = resolveEnvironment(config.environment);
  const container = effectiveContainer(config, spec.snapshot.defaults);
  let spawnCount = 0;
  const svcVars = svcVariables(task, project, step, index, attempt, runId);
  const signal = AbortSignal.any([spec.signal, open.latch.signal]);
  const context = { ...spec.context, Step: { ...(spec.context.Step as object), Attempt: attempt } };
  let outputTail = '';
  let current: { pauseTimeout(): void; resumeTimeout(): void } | null = null;
  let scratch: string | null = null;
  let inputWaitMs = 0;

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
          ready: open.ready,
          mark: deps.procMark ? `${deps.procMark}.r${runId}` : undefined,
          // The line's text is decoded only when a stream takes it (decision 251).
          onOutput: (line) => {
            if (!deps.events.listening) return;
            deps.events.live({
              kind: 'command.output',
              task_id: task.id,
              data: { run_id: runId, ...line },
            });
          },
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
    // Read as the attempt starts: kernel.ts fills the host once the rooms behind it exist.
    agents: deps.host.agents ?? null,
    mcp: deps.host.mcp ?? null,
    clock: { now: () => deps.clock.now() },
  };
  return { ctx, outputTail: () => outputTail, scratch: () => scratch };
}
