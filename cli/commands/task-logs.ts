/**
 * `svc task logs <id>` (issue 19 point 7, decision 207): every attempt's transcript, whole —
 * followed page by page through `X-Next-Offset`, streamed to stdout — rendered the way `-f`
 * renders live output (agent text, `→ Tool summary`, results, errors). `--raw` prints the stored
 * bytes, and with `-f` reads the live part from the transcript as it grows. `-f` then follows
 * the task's event stream until it stops, and says why it stopped: the block reason and its
 * message, the gate's instructions, the agent's question.
 */
import type { StepRun } from '../../shared/wire-types.js';
import type { Client } from '../client.js';
import type { Command, CommandContext } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { positiveId } from '../format.js';
import { type Frame, followStream } from '../sse.js';
import { readTranscriptPages, renderEvent, renderStoredLine } from '../transcript.js';
import { stoppedLines, type TaskLike } from '../waiting.js';

/** States `-f` stops at: the task no longer runs by itself. */
const STOPS = new Set([
  'done',
  'aborted',
  'archived',
  'blocked',
  'awaiting_gate',
  'awaiting_input',
  'paused',
  'awaiting_children',
]);

function header(s: Pick<StepRun, 'step_id' | 'attempt' | 'iteration' | 'state'>): string {
  return `── ${s.step_id} attempt ${s.attempt}${s.iteration > 0 ? ` iteration ${s.iteration}` : ''} (${s.state})`;
}

/**
 * Prints one run's transcript from raw offset `from` to its end; the offset reached, or null
 * without a transcript.
 */
async function printRun(
  ctx: CommandContext,
  client: Client,
  taskId: number,
  runId: number,
  from = 0,
): Promise<number | null> {
  const raw = ctx.options.raw === true;
  const r = await readTranscriptPages(
    client,
    `/v1/tasks/${taskId}/steps/${runId}/transcript`,
    { from, format: raw ? 'raw' : 'events' },
    async (page) => {
      for (const line of page.lines)
        for (const l of raw ? [line] : renderStoredLine(line)) ctx.out(l);
      await ctx.drained();
    },
  );
  if (r?.stuck)
    ctx.err(
      `svc: the transcript of run ${runId} has a line longer than a page at byte ${r.offset}; stopped there`,
    );
  return r?.offset ?? null;
}

export const taskLogs: Command = {
  name: 'task logs',
  summary: 'Print a task’s output (every attempt, whole); -f follows live output until it stops',
  usage: 'svc task logs <id> [--run <run id>] [-f] [--raw]',
  options: {
    run: { type: 'string', description: 'only this step run' },
    follow: {
      type: 'boolean',
      short: 'f',
      description: 'keep printing live output until the task stops, then say why it stopped',
    },
    raw: {
      type: 'boolean',
      description:
        'print transcript lines as stored (the CLI’s own JSON); with -f, the live ones too',
    },
  },
  async run(ctx) {
    const id = positiveId(ctx.args[0], 'task');
    const only =
      typeof ctx.options.run === 'string' ? positiveId(ctx.options.run, '--run') : undefined;
    const client = ctx.client();
    // Subscribe before reading the transcripts, so nothing written in between is lost: a live
    // chunk carries its transcript offset, and only chunks past what was read are printed.
    const frames: Frame[] = [];
    let deliver: ((f: Frame) => boolean) | null = null;
    const ac = new AbortController();
    const following = ctx.options.follow
      ? followStream(
          client,
          `/v1/tasks/${id}/events`,
          (f) => {
            if (deliver) return deliver(f);
            frames.push(f);
            return false;
          },
          { signal: ac.signal },
        ).catch(() => {})
      : Promise.resolve();
    // A refused read ends the stream too: left open, it kept the process alive (issue 20).
    const closing = <T>(p: Promise<T>): Promise<T> =>
      p.catch(async (err: unknown) => {
        ac.abort();
        await following;
        throw err;
      });
    const readUpTo = new Map<number, number>();
    const steps = await closing(client.get<StepRun[]>(`/v1/tasks/${id}/steps`));
    for (const s of steps) {
      if ((only !== undefined && s.id !== only) || !s.has_transcript) continue;
      ctx.out(header(s));
      const reached = await closing(printRun(ctx, client, id, s.id));
      if (reached !== null) readUpTo.set(s.id, reached);
    }
    if (!ctx.options.follow) return EXIT.ok;

    let stopped: string | null = null;
    // --raw prints what the transcript stores, so its live part is read from the transcript too:
    // a live chunk only says that its run grew. Reads and headers take turns in one queue, so a
    // step's last lines come before the next step's header. A read that fails ends the stream
    // and the command with its error, as a refused read does before following; turns after it
    // do nothing.
    const raw = ctx.options.raw === true;
    const grown = new Set<number>();
    let turns: Promise<void> = Promise.resolve();
    let failure: { err: unknown } | null = null;
    const inTurn = (fn: () => Promise<void> | void) => {
      turns = turns
        .then(() => (failure ? undefined : fn()))
        .catch((err: unknown) => {
          failure ??= { err };
          ac.abort();
        });
    };
    /** Reads the grown runs (with `all`, every run read so far) from where each was left. */
    const catchUp = (all = false) => {
      if (all) for (const known of readUpTo.keys()) grown.add(known);
      inTurn(async () => {
        for (const runId of [...grown]) {
          grown.delete(runId);
          const reached = await printRun(ctx, client, id, runId, readUpTo.get(runId) ?? 0);
          if (reached !== null) readUpTo.set(runId, reached);
        }
      });
    };
    const handle = (f: Frame): boolean => {
      const data = f.data ? (JSON.parse(f.data) as Record<string, unknown>) : {};
      const payload = (data.payload ?? {}) as Record<string, unknown>;
      const runId = typeof data.run_id === 'number' ? data.run_id : -1;
      const offset = typeof data.offset === 'number' ? data.offset : Number.POSITIVE_INFINITY;
      if ((readUpTo.get(runId) ?? -1) >= offset) return false;
      if (f.event === 'step.started') {
        // The runs before it may have written their last lines (a step's end) since their output.
        if (raw) catchUp(true);
        const line = header({
          step_id: String(payload.step_id ?? ''),
          attempt: Number(payload.attempt ?? 1),
          iteration: 0,
          state: 'running',
        });
        inTurn(() => ctx.out(line));
      } else if (f.event === 'task.state_changed') {
        const to = String(payload.to ?? '');
        if (STOPS.has(to)) {
          stopped = to;
          return true;
        }
      } else if (raw && runId >= 0) {
        grown.add(runId);
        catchUp();
      } else if (f.event) {
        const lines = renderEvent(f.event, data);
        inTurn(() => {
          for (const l of lines) ctx.out(l);
        });
      }
      return false;
    };
    let task = await closing(client.get<TaskLike>(`/v1/tasks/${id}`));
    if (STOPS.has(task.state)) stopped = task.state;
    for (const f of frames.splice(0)) if (!stopped && handle(f)) break;
    if (stopped) ac.abort();
    else deliver = handle;
    await following;
    // Whatever the runs wrote before the task stopped is printed before why it stopped.
    if (raw) catchUp(true);
    await turns;
    // Set inside the turns, which TypeScript does not follow.
    const failed = failure as { err: unknown } | null;
    if (failed) throw failed.err;
    if (stopped) {
      // Why it stopped, read now: the block reason and message, the gate, the question.
      task = await client.get<TaskLike>(`/v1/tasks/${id}`);
      ctx.out(`── task ${id} is ${task.state}`);
      for (const l of stoppedLines(task)) ctx.out(l);
    }
    return EXIT.ok;
  },
};
