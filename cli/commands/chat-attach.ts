/**
 * `svc chat attach <id>` (decision 211): a prompt loop on an open chat. Each line typed is a turn,
 * streamed live; a question is shown with its options and the next lines answer it (a number
 * picks an option); `/cancel` or Ctrl-C stops the live turn; `/quit`, `/exit`, Ctrl-D or Ctrl-C at
 * the prompt leave, and the chat stays open. The same loop runs piped, without prompts.
 */
import { ApiError, type Client } from '../client.js';
import type { Command, CommandContext, LineReader } from '../command.js';
import { EXIT, exitCodeForError } from '../exit-codes.js';
import { positiveId } from '../format.js';
import {
  type ChatPending,
  type PendingInput,
  questionLines,
  reportTurn,
  streamTurn,
  type TurnEnd,
} from './chat-turn.js';

interface AttachDetail {
  chat: {
    id: number;
    title: string;
    agent: string;
    state: string;
    pending_input?: ChatPending;
  };
  turns: Array<{ seq: number; state: string }>;
}

const OPEN = ['idle', 'running', 'awaiting_input'];
const HELP =
  'Type a message and press Enter to send it. /cancel stops the live turn (so does Ctrl-C while it runs); /quit, /exit or Ctrl-D leave (the chat stays open).';

/**
 * True when a refusal ends attach: the chat cannot take another line, or no one is at a terminal
 * to decide what to do next (piped lines were written for a chat that accepted them).
 */
function ends(e: ApiError, input: LineReader): boolean {
  const state = e.details?.state;
  return (
    !input.interactive ||
    e.code === 'not_found' ||
    (typeof state === 'string' && !OPEN.includes(state))
  );
}

/** One answer line for a question: an option's number picks that option; commas split a multi-select. */
function answerValue(
  line: string,
  q: NonNullable<PendingInput['questions']>[number],
): string | string[] {
  const pick = (s: string) => {
    const n = /^\d+$/.test(s) ? Number(s) : 0;
    return q.options && n >= 1 && n <= q.options.length ? (q.options[n - 1] as string) : s;
  };
  if (!q.multi_select) return pick(line);
  return line
    .split(',')
    .map((s) => pick(s.trim()))
    .filter((s) => s !== '');
}

/** Prints the question with numbered options; reads one line per question; null when input ended. */
async function readAnswer(
  ctx: CommandContext,
  input: LineReader,
  pending: ChatPending | undefined,
): Promise<Record<string, unknown> | null> {
  const request = pending?.request;
  if (pending?.kind === 'permission' || request?.kind === 'permission') {
    ctx.out(`? ${questionLines(pending).join(' ')}`);
    input.prompt('allow? [y/N] ');
    const line = await input.next();
    if (line === null) return null;
    return { allow: /^y(es)?$/i.test(line.trim()) };
  }
  const questions = request?.questions ?? [];
  if (questions.length === 0) {
    ctx.out(`? ${questionLines(pending).join(' ')}`);
    input.prompt('answer> ');
    const line = await input.next();
    if (line === null) return null;
    return { answers: { [pending?.summary ?? '']: line.trim() } };
  }
  const answers: Record<string, string | string[]> = {};
  for (const q of questions) {
    ctx.out(`? ${q.text}`);
    (q.options ?? []).forEach((o, i) => {
      ctx.out(`  ${i + 1}) ${o}`);
    });
    if (q.multi_select) ctx.out('  (several allowed: separate them with commas)');
    input.prompt(`${q.header ?? 'answer'}> `);
    let line: string | null = '';
    while (line !== null && line.trim() === '') line = await input.next();
    if (line === null) return null;
    answers[q.text] = answerValue(line.trim(), q);
  }
  return { answers };
}

export const chatAttach: Command = {
  name: 'chat attach',
  summary:
    'A prompt loop on an open chat: each line is a turn streamed live, questions answered inline; /cancel, /quit, Ctrl-D',
  usage: 'svc chat attach <id>',
  async run(ctx) {
    const id = positiveId(ctx.args[0], 'chat');
    const client = ctx.client();
    const first = await client.get<AttachDetail>(`/v1/chats/${id}`);
    if (!OPEN.includes(first.chat.state)) {
      ctx.err(
        `svc: chat ${id} is ${first.chat.state}; only an open chat (idle, running or awaiting_input) can be attached`,
      );
      return EXIT.conflict;
    }
    ctx.out(`attached to chat ${id}: ${first.chat.title} (${first.chat.agent})`);
    ctx.out(HELP);
    const input = ctx.lines();
    let live = false;
    input.onInterrupt(() => {
      if (!live) {
        input.close();
        return;
      }
      ctx.err('cancelling the turn…');
      client.post(`/v1/chats/${id}/cancel`).catch(() => {});
    });
    const follow = async (start: () => Promise<number>, recheck = false): Promise<TurnEnd> => {
      live = true;
      try {
        return await streamTurn(ctx, client, id, start, { recheck });
      } finally {
        live = false;
      }
    };
    let pending: ChatPending | undefined;
    const settle = (end: TurnEnd) => {
      pending = end.state === 'asking' ? end.pending : undefined;
      if (end.state !== 'asking') reportTurn(ctx, end, '');
    };
    let code: number = EXIT.ok;
    try {
      if (first.chat.state === 'awaiting_input') pending = first.chat.pending_input;
      else if (first.chat.state === 'running') {
        const seq = first.turns.at(-1)?.seq ?? 0;
        ctx.out(`turn ${seq} is running; following it`);
        settle(await follow(async () => seq, true));
      }
      for (;;) {
        if (pending) {
          const body = await readAnswer(ctx, input, pending);
          if (body === null) break;
          const seq = await currentSeq(client, id);
          try {
            settle(
              await follow(async () => {
                await client.post(`/v1/chats/${id}/answer`, body);
                return seq;
              }),
            );
          } catch (e) {
            if (!(e instanceof ApiError)) throw e;
            ctx.err(`svc: ${e.message}`);
            if (ends(e, input)) {
              code = exitCodeForError(e.code, e.status);
              break;
            }
            // The question may be gone (timed out, answered elsewhere): ask the daemon again.
            const now = await client.get<AttachDetail>(`/v1/chats/${id}`);
            pending = now.chat.state === 'awaiting_input' ? now.chat.pending_input : undefined;
          }
          continue;
        }
        input.prompt('you> ');
        const raw = await input.next();
        if (raw === null) break;
        const line = raw.trim();
        if (line === '') continue;
        if (line === '/quit' || line === '/exit') break;
        if (line === '/help') {
          ctx.out(HELP);
          continue;
        }
        try {
          if (line === '/cancel') {
            await client.post(`/v1/chats/${id}/cancel`);
            ctx.out('cancelled');
            continue;
          }
          settle(
            await follow(async () => {
              const sent = await client.post<{ turn: { seq: number } }>(`/v1/chats/${id}/send`, {
                message: raw,
              });
              return sent.turn.seq;
            }),
          );
        } catch (e) {
          if (!(e instanceof ApiError)) throw e;
          ctx.err(`svc: ${e.message}`);
          if (ends(e, input)) {
            code = exitCodeForError(e.code, e.status);
            break;
          }
        }
      }
    } finally {
      input.close();
    }
    return code;
  },
};

async function currentSeq(client: Client, id: number): Promise<number> {
  const d = await client.get<AttachDetail>(`/v1/chats/${id}`);
  return d.turns.at(-1)?.seq ?? 0;
}
