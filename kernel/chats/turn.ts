/**
 * A chat's turns (SPEC §3.3, decisions 160–161): sending a message starts one, which resumes the
 * CLI's own session through the shared agent turn; the agent's questions park the chat in
 * awaiting_input until answered; cancel stops the live turn and keeps the session for the next send.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatNs } from '../clock/index.js';
import { parseDuration, tryParseSize } from '../config/index.js';
import { spawnLogged } from '../engine/index.js';
import { SvcError } from '../errors.js';
import type { InputOutcome, InputWait, UsageTotals } from '../plugin/index.js';
import { runAgentTurn, type TurnIo } from '../plugin/index.js';
import { killMarked, TranscriptWriter } from '../proc/index.js';
import type { ChatCore, LiveTurn } from './core.js';
import { BUSY_CHAT_STATES } from './schema.js';
import type { ChatRow, TurnRow, TurnState } from './table.js';

type TurnEnd = {
  state: TurnState;
  reason?: string;
  message?: string;
  result_text?: string;
  session_id?: string | null;
  totals?: UsageTotals | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
  cost_usd?: number | null;
  exit_code?: number | null;
};

export class ChatTurns {
  private stopping = false;

  constructor(private readonly core: ChatCore) {}

  /**
   * Turns a daemon restart left running are ended `interrupted` and their chats go back to idle
   * (the CLI process died with the daemon).
   */
  recover(): void {
    this.core.d.store.tx(() => {
      for (const turn of this.core.table.runningTurns()) {
        // The CLI's process group may have died with the daemon; what left it has not (decision 182).
        killMarked(`${this.core.turnMark(turn.chat_id, turn.seq)}.`);
        this.core.table.updateTurn(turn.id, {
          state: 'interrupted',
          failure_reason: 'daemon_restarted',
          failure_message: 'the daemon stopped during this turn',
          finished_at: this.core.now(),
        });
      }
      for (const chat of this.core.table.inStates(BUSY_CHAT_STATES))
        this.core.moveChat(chat, 'idle', {});
    });
  }

  /** Stops every live turn (daemon stop); each turn ends `interrupted` and its chat goes idle. */
  async stop(): Promise<void> {
    this.stopping = true;
    const turns = [...this.core.live.values()];
    for (const t of turns) t.abort.abort();
    await Promise.all(turns.map((t) => t.done));
  }

  /** `POST /v1/chats/{id}/send`: starts a turn, or refuses; never queues (SPEC §3.3). */
  send(id: number, message: string): { chat: ChatRow; turn: TurnRow } {
    const { d } = this.core;
    const chat = this.core.load(id);
    if (chat.state !== 'idle')
      throw new SvcError('invalid_state', `cannot send to a chat that is ${chat.state}`, {
        state: chat.state,
      });
    if (this.core.cwdOf(chat) === null) {
      const task =
        chat.linked_task_id !== null ? d.engine.tasks.get(chat.linked_task_id) : undefined;
      throw new SvcError('task_has_no_worktree', `chat ${id} has no worktree to run in`, {
        state: task?.state ?? chat.state,
        action: 'send',
        ...(chat.linked_task_id !== null ? { task_id: chat.linked_task_id } : {}),
      });
    }
    const { turn, context } = d.store.tx(() => {
      const max = d.config.current().max_parallel_chats;
      if (this.core.table.countIn(BUSY_CHAT_STATES) >= max)
        throw new SvcError(
          'chat_cap_reached',
          `max_parallel_chats (${max}) chats already hold a live process; send again when one finishes`,
          { state: chat.state },
        );
      if (!this.core.moveChat(chat, 'running', { context: null }, ['idle'])) {
        const now = this.core.load(id);
        throw new SvcError('invalid_state', `cannot send to a chat that is ${now.state}`, {
          state: now.state,
        });
      }
      const t = this.core.table.insertTurn(id, message, this.core.now());
      d.events.append(
        'chat.turn_started',
        { project_id: chat.project_id, chat_id: id },
        { seq: t.seq },
      );
      return { turn: t, context: chat.context };
    });
    const abort = new AbortController();
    const live: LiveTurn = { abort, waiting: null, done: Promise.resolve() };
    this.core.live.set(id, live);
    live.done = this.runTurn(this.core.load(id), turn, context, live)
      .catch((err: unknown) => {
        d.logger.error({ err, chat_id: id }, 'chat turn failed unexpectedly');
        // Recording the failure can fail too (a full disk): logged, never an unhandled rejection.
        try {
          this.finishTurn(id, turn, {
            state: 'failed',
            reason: 'internal_error',
            message: (err as Error).message,
          });
        } catch (again) {
          d.logger.error({ err: again, chat_id: id }, 'chat turn failure not recorded');
        }
      })
      .finally(() => {
        if (this.core.live.get(id) === live) this.core.live.delete(id);
      });
    return { chat: this.core.load(id), turn };
  }

  private async runTurn(
    chat: ChatRow,
    turn: TurnRow,
    context: string | null,
    live: LiveTurn,
  ): Promise<void> {
    const { d } = this.core;
    const end = (e: TurnEnd) => this.finishTurn(chat.id, turn, e);
    const adapter = d.agents.adapter(chat.agent);
    if (!adapter)
      return end({
        state: 'failed',
        reason: 'agent_unavailable',
        message: `agent ${chat.agent} is not registered`,
      });
    const cwd = this.core.cwdOf(chat);
    if (!cwd)
      return end({
        state: 'failed',
        reason: 'task_has_no_worktree',
        message: 'the worktree is gone',
      });
    const found = await d.agents.locate(chat.agent);
    if (!found.ok)
      return end({ state: 'failed', reason: 'agent_unavailable', message: found.message });
    if (live.abort.signal.aborted) return end({ state: 'cancelled' });

    const config = d.config.current();
    const transcriptPath = join(
      d.paths.transcriptsDir,
      `chat-${chat.id}`,
      `turn-${turn.seq}.jsonl`,
    );
    d.store.tx(() => this.core.table.updateTurn(turn.id, { transcript_path: transcriptPath }));
    const latch = new AbortController();
    const transcript = new TranscriptWriter(
      transcriptPath,
      tryParseSize(config.transcript_max_bytes) ?? 0,
      () => latch.abort(),
    );
    const ts = () => formatNs(d.clock.nowNs());
    const signal = AbortSignal.any([live.abort.signal, latch.signal]);
    let proc: { pauseTimeout(): void; resumeTimeout(): void } | null = null;
    const scratch = mkdtempSync(join(tmpdir(), `svc-chat-${chat.id}-`));
    const io: TurnIo = {
      signal,
      spawn: (req) =>
        spawnLogged(
          {
            transcript,
            ts,
            clock: d.clock,
            config,
            cwd,
            vars: { SVC_CHAT_ID: String(chat.id) },
            // Chats run on the host (decision 165): a container would outlive no turn anyway.
            container: null,
            containerName: () => `svc-chat-${chat.id}`,
            mounts: [],
            signal,
            cancelled: () => live.abort.signal.aborted,
            mark: this.core.turnMark(chat.id, turn.seq),
            // The line's text is decoded only when a stream takes it (decision 251).
            onOutput: (line) => {
              if (!d.events.listening) return;
              d.events.live({
                kind: 'command.output',
                chat_id: chat.id,
                data: { seq: turn.seq, ...line },
              });
            },
            onProcess: (p) => {
              proc = p;
            },
          },
          req,
        ),
      annotate: (kind, fields) => transcript.annotate(kind, fields, ts()),
      live: (kind, data) =>
        d.events.live({ kind, chat_id: chat.id, data: { seq: turn.seq, ...data } }),
      requestInput: async (wait) => {
        proc?.pauseTimeout();
        transcript.annotate('input_request', { pending: wait.pending }, ts());
        const r = await this.waitForInput(chat.id, wait, live, signal);
        transcript.annotate(r.kind === 'answered' ? 'input_response' : `input_${r.kind}`, {}, ts());
        proc?.resumeTimeout();
        return r;
      },
    };
    let totals: UsageTotals | null = null;
    try {
      totals = chat.session_totals ? (JSON.parse(chat.session_totals) as UsageTotals) : null;
    } catch {}
    const restricted = chat.restricted === 1;
    try {
      const r = await runAgentTurn(io, d.agents, {
        adapter,
        located: found,
        // The context block opens the first turn only; the human's words follow literally.
        prompt: context ? `${context}\n\n${turn.message}` : turn.message,
        cwd,
        model: chat.model,
        effort: adapter.traits.supports_effort ? chat.effort : '',
        permission_mode: restricted ? 'restricted' : 'full-auto',
        on_input: adapter.traits.supports_input ? 'wait' : 'deny',
        resume: chat.session_id ? { session_id: chat.session_id, totals } : null,
        mcp: null,
        scratch_dir: scratch,
        platform: d.agents.platform,
        timeoutMs: parseDuration(config.defaults.agent_timeout),
        label: `${adapter.name} (chat ${chat.id}, turn ${turn.seq})`,
        debugFields: { agent: chat.agent, model: chat.model, effort: chat.effort },
      });
      if (transcript.latched && r.kind !== 'cancelled')
        return end({
          state: 'failed',
          reason: 'transcript_limit',
          message: 'the turn passed transcript_max_bytes',
        });
      switch (r.kind) {
        case 'refused':
          return end({ state: 'failed', reason: r.reason, message: r.message });
        case 'cancelled':
          // The CLI keeps a stopped session: the next send resumes it (decision 161).
          return end({ state: 'cancelled', session_id: r.session_id ?? chat.session_id });
        case 'spawn_failed':
          return end({ state: 'failed', reason: 'agent_unavailable', message: r.message });
      }
      const v = r.verdict;
      const usage = {
        session_id: v.session_id ?? chat.session_id,
        totals: v.session_totals,
        input_tokens: v.input_tokens,
        output_tokens: v.output_tokens,
        cost_usd: v.cost_usd,
        exit_code: r.exit_code,
      };
      if (r.input_failure)
        return end({
          state: 'failed',
          reason: r.input_failure.reason,
          message: r.input_failure.message,
          ...usage,
        });
      if (r.timed_out)
        return end({
          state: 'failed',
          reason: 'timeout',
          message: `${adapter.name} did not finish within agent_timeout`,
          ...usage,
        });
      if (v.kind === 'succeeded') {
        d.agents.succeeded(adapter.name);
        return end({ state: 'succeeded', result_text: v.result_text, ...usage });
      }
      // A spent window is an observation like a step's (SPEC §2.4); the turn just fails, nothing waits.
      if (v.kind === 'usage_limit') d.agents.usageLimited(adapter.name, v.resets_at, v.message);
      return end({
        state: 'failed',
        reason: v.kind === 'usage_limit' ? 'usage_limit' : v.reason,
        message: v.message,
        ...usage,
      });
    } finally {
      await transcript.close();
      rmSync(scratch, { recursive: true, force: true });
    }
  }

  /** Parks the chat in awaiting_input until answered, the input timeout, or the turn stops. */
  private waitForInput(
    chatId: number,
    wait: InputWait,
    live: LiveTurn,
    signal: AbortSignal,
  ): Promise<InputOutcome> {
    const { d } = this.core;
    const chat = this.core.load(chatId);
    const moved = d.store.tx(() =>
      this.core.moveChat(chat, 'awaiting_input', {}, ['running'], {
        input: { kind: wait.kind, summary: wait.summary },
      }),
    );
    if (!moved || signal.aborted) return Promise.resolve({ kind: 'cancelled', waited_ms: 0 });
    const start = d.clock.now();
    const timeoutMs = parseDuration(d.config.current().defaults.input_timeout);
    return new Promise<InputOutcome>((resolve) => {
      let settled = false;
      const finish = (kind: 'answered' | 'timeout' | 'cancelled', answer?: unknown) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        signal.removeEventListener('abort', onAbort);
        live.waiting = null;
        const waited_ms = d.clock.now() - start;
        if (kind !== 'cancelled') {
          const now = this.core.table.get(chatId);
          if (now) d.store.tx(() => this.core.moveChat(now, 'running', {}, ['awaiting_input']));
        }
        resolve(kind === 'answered' ? { kind, answer, waited_ms } : { kind, waited_ms });
      };
      const timer = d.clock.setTimer(timeoutMs, () => finish('timeout'));
      const onAbort = () => finish('cancelled');
      signal.addEventListener('abort', onAbort, { once: true });
      live.waiting = { wait, resolve: (answer) => finish('answered', answer) };
    });
  }

  private finishTurn(chatId: number, turn: TurnRow, given: TurnEnd): void {
    const { d } = this.core;
    // A stop for shutdown is not the human's cancel: the turn says the daemon ended it.
    const e: TurnEnd =
      given.state === 'cancelled' && this.stopping
        ? {
            ...given,
            state: 'interrupted',
            reason: 'daemon_stopping',
            message: 'the daemon stopped during this turn',
          }
        : given;
    d.store.tx(() => {
      this.core.table.updateTurn(turn.id, {
        state: e.state,
        failure_reason: e.state === 'cancelled' ? 'cancelled' : (e.reason ?? null),
        failure_message: e.message ?? null,
        result_text: e.result_text ?? null,
        session_id: e.session_id ?? null,
        input_tokens: e.input_tokens ?? null,
        output_tokens: e.output_tokens ?? null,
        cost_usd: e.cost_usd ?? null,
        exit_code: e.exit_code ?? null,
        finished_at: this.core.now(),
      });
      const chat = this.core.table.get(chatId);
      if (!chat) return;
      // The session survives a failed or cancelled turn: the next one resumes what the CLI kept.
      if (e.session_id) this.core.table.update(chatId, { session_id: e.session_id });
      if (e.totals) this.core.table.update(chatId, { session_totals: JSON.stringify(e.totals) });
      d.events.append(
        'chat.turn_finished',
        { project_id: chat.project_id, chat_id: chatId },
        { seq: turn.seq, state: e.state, failure_reason: e.reason ?? null },
      );
      // A close that stopped this turn already moved the chat; only a live chat goes idle.
      this.core.moveChat(chat, 'idle', {}, BUSY_CHAT_STATES);
    });
  }

  /** `POST /v1/chats/{id}/answer`: the task answer body, validated by the adapter's protocol. */
  answer(id: number, body: unknown): ChatRow {
    const chat = this.core.load(id);
    const waiting = this.core.live.get(id)?.waiting;
    if (chat.state !== 'awaiting_input' || !waiting)
      throw new SvcError('invalid_state', 'no agent is waiting for an answer on this chat', {
        state: chat.state,
      });
    const v = waiting.wait.validate(body);
    if (!v.ok)
      throw new SvcError('validation_failed', v.message, v.field ? { field: v.field } : undefined);
    waiting.resolve(v.answer);
    return this.core.load(id);
  }

  /**
   * `POST /v1/chats/{id}/cancel` (decision 161): stops the live turn and waits for it to end; the
   * turn is recorded `cancelled` and the chat is idle again, keeping its session for the next send.
   */
  async cancel(id: number): Promise<ChatRow> {
    const chat = this.core.load(id);
    const live = this.core.live.get(id);
    if (!BUSY_CHAT_STATES.includes(chat.state) || !live)
      throw new SvcError(
        'invalid_state',
        `cannot cancel: chat ${id} is ${chat.state}, no turn is live`,
        {
          state: chat.state,
        },
      );
    live.abort.abort();
    await live.done;
    return this.core.load(id);
  }
}
