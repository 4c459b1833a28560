/**
 * One chat turn followed live from the command line (`svc chat send`, `svc chat attach`,
 * decision 210): subscribe to the chat's stream, then make the request that starts or resumes the
 * turn, print its output as it arrives, and stop at the turn's end or at a question. The stream is
 * closed on every way out, a refused request first among them: an open stream keeps the process
 * alive, and a refusal that left it open printed its message and then hung (issue 20).
 */
import type { Client } from '../client.js';
import type { CommandContext } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { type Frame, openStream } from '../sse.js';
import type { answersFrom } from './task-agent.js';

/** A pending request as the adapters describe it (`svc task answer` reads the same shape). */
export type PendingInput = Parameters<typeof answersFrom>[1];

/** What a chat answers with a pending question: the summary and the adapter's request. */
export interface ChatPending {
  kind: string;
  summary: string;
  request?: PendingInput;
}

/** How a followed turn ended. `asking`: it waits for an answer (the turn is still live). */
export interface TurnEnd {
  seq: number;
  state: 'succeeded' | 'failed' | 'cancelled' | 'interrupted' | 'asking' | string;
  /** The chat's state at the end (`idle`, `awaiting_input`, `closed` …). */
  chat: string;
  reason: string | null;
  message: string | null;
  pending?: ChatPending;
}

interface ChatDetail {
  chat: { state: string; pending_input?: ChatPending };
  turns: Array<{
    seq: number;
    state: string;
    failure_reason: string | null;
    failure_message: string | null;
  }>;
}

function parse(f: Frame): Record<string, unknown> {
  try {
    return f.data ? (JSON.parse(f.data) as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

async function detail(client: Client, id: number): Promise<ChatDetail> {
  return client.get<ChatDetail>(`/v1/chats/${id}`);
}

/**
 * The pending question as lines: each question with its options (and whether several may be
 * chosen), or the permission asked for; the summary when the adapter gave no detail.
 */
export function questionLines(p: ChatPending | undefined): string[] {
  const r = p?.request;
  if (r?.kind === 'permission' || (p?.kind === 'permission' && r?.permission))
    return [
      `allow ${r?.permission?.tool ?? 'a tool'}: ${r?.permission?.summary ?? p?.summary ?? ''}?`,
    ];
  const questions = r?.questions ?? [];
  if (questions.length === 0) return [p?.summary ?? 'the agent asks a question'];
  return questions.map(
    (q) =>
      `${q.text}${q.options?.length ? ` (options: ${q.options.join(', ')}${q.multi_select ? '; several allowed' : ''})` : ''}`,
  );
}

/**
 * Follows a turn: subscribes to the chat's stream, then calls `start`, which makes the request
 * (send, answer) and returns the turn's seq; prints the turn's output until it ends or asks.
 * A refused `start` closes the stream and throws the refusal. `recheck`: the turn was already
 * live before the stream opened, so it may have ended unseen; its state is read once more.
 */
export async function streamTurn(
  ctx: CommandContext,
  client: Client,
  id: number,
  start: () => Promise<number>,
  opts: { recheck?: boolean } = {},
): Promise<TurnEnd> {
  let seq = -1;
  const early: Frame[] = [];
  let end: TurnEnd | null = null;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const handle = (f: Frame): boolean => {
    const data = parse(f);
    const payload = (data.payload ?? {}) as Record<string, unknown>;
    if (f.event === 'agent.output' && data.seq === seq && typeof data.text === 'string')
      ctx.out(data.text);
    else if (f.event === 'agent.tool_use' && data.seq === seq) {
      const tools = (data.tools ?? []) as Array<{ name?: string }>;
      ctx.err(`· ${tools.map((t) => t.name ?? 'tool').join(', ')}`);
    } else if (f.event === 'chat.state_changed' && payload.to === 'awaiting_input') {
      end = { seq, state: 'asking', chat: 'awaiting_input', reason: null, message: null };
      return true;
    } else if (f.event === 'chat.turn_finished' && payload.seq === seq) {
      end = {
        seq,
        state: String(payload.state),
        chat: 'idle',
        reason: (payload.failure_reason as string | null) ?? null,
        message: null,
      };
      return true;
    }
    return false;
  };
  // Frames that arrive before `start` answers wait until the turn's seq is known.
  const stream = openStream(client, `/v1/chats/${id}/events`, (f) => {
    if (end) return true;
    if (seq < 0) {
      early.push(f);
      return false;
    }
    const stop = handle(f);
    if (stop) finish();
    return stop;
  });
  try {
    await stream.opened;
    seq = await start();
    for (const f of early.splice(0))
      if (handle(f)) {
        finish();
        break;
      }
    if (!end && opts.recheck && (await detail(client, id)).chat.state !== 'running') finish();
    await Promise.race([finished, stream.done]);
  } finally {
    await stream.close();
  }
  const now = await detail(client, id);
  const turn = now.turns.find((t) => t.seq === seq);
  if (!end) {
    // The stream ended first (the daemon stopped): the turn as it is now.
    end = {
      seq,
      state: now.chat.state === 'awaiting_input' ? 'asking' : (turn?.state ?? 'unknown'),
      chat: now.chat.state,
      reason: turn?.failure_reason ?? null,
      message: null,
    };
  }
  const result: TurnEnd = end;
  result.chat = now.chat.state;
  result.message = turn?.failure_message ?? null;
  if (result.state === 'asking') result.pending = now.chat.pending_input;
  return result;
}

/**
 * Says how a turn ended and answers the exit code: 0 for a turn that succeeded or waits for an
 * answer, 1 for one that failed, was cancelled or was interrupted — each said on stderr, since a
 * script reading stdout gets the agent's text only. `answerHint` follows a question.
 */
export function reportTurn(ctx: CommandContext, end: TurnEnd, answerHint: string): number {
  const why = [end.reason, end.message].filter((s) => s && s !== 'cancelled').join(' — ');
  switch (end.state) {
    case 'succeeded':
      return EXIT.ok;
    case 'asking':
      for (const line of questionLines(end.pending)) ctx.out(`? ${line}`);
      if (answerHint) ctx.out(answerHint);
      return EXIT.ok;
    case 'cancelled':
      ctx.err(
        `turn ${end.seq} was cancelled${end.chat === 'closed' ? '; the chat is closed' : ''}`,
      );
      return EXIT.failure;
    case 'interrupted':
      ctx.err(`turn ${end.seq} was interrupted${why ? `: ${why}` : ''}`);
      return EXIT.failure;
    case 'failed':
      ctx.err(`turn ${end.seq} failed${why ? `: ${why}` : ''}`);
      return EXIT.failure;
    default:
      ctx.err(`turn ${end.seq} is ${end.state}`);
      return EXIT.failure;
  }
}

/** The `svc chat answer` line that answers this question from another shell. */
export function answerCommand(id: number, p: ChatPending | undefined): string {
  if (p?.kind === 'permission') return `answer with: svc chat answer ${id} --allow (or --deny)`;
  const questions = p?.request?.questions ?? [];
  if (questions.length > 1)
    return `answer with: svc chat answer ${id} --answer "<question>=<value>" (one per question)`;
  return `answer with: svc chat answer ${id} --answer <value>`;
}
