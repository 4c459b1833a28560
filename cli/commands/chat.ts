/**
 * `svc chat …` (SPEC §2.5, §4.5): open chats (alone or on a stopped task), list and show them,
 * send a turn and stream its output live, answer a question, cancel, archive, hand off to a task,
 * close and delete; `svc chat attach` is an interactive prompt loop in the terminal (decision 168).
 */
import { type Command, type CommandContext, JSON_OPTION, stringOptions } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { elapsed, positiveId, table, truncate, UsageError } from '../format.js';
import { chatAttach } from './chat-attach.js';
import {
  answerCommand,
  type ChatPending,
  questionLines,
  reportTurn,
  streamTurn,
} from './chat-turn.js';
import { answersFrom } from './task-agent.js';

interface Chat {
  id: number;
  project_id: number;
  title: string;
  agent: string;
  model: string;
  state: string;
  worktree_path: string;
  branch_name: string;
  linked_task_id?: number;
  handoff_task_id?: number;
  restricted: boolean;
  pending_input?: ChatPending;
  created_at: string;
  ended_at: string | null;
  branch?: { name: string; result: string; error?: string };
}

interface Turn {
  seq: number;
  state: string;
  message: string;
  failure_reason: string | null;
  failure_message: string | null;
  result_text: string | null;
  cost_usd: number | null;
  started_at: string;
  finished_at: string | null;
}

const idArg = (ctx: CommandContext) => positiveId(ctx.args[0], 'chat');

function printChat(ctx: CommandContext, c: Chat): void {
  const lines = [
    `chat ${c.id}: ${c.title}`,
    `  state     ${c.state}`,
    `  agent     ${c.agent}${c.model ? ` (${c.model})` : ''}${c.restricted ? ', restricted' : ''}`,
  ];
  if (c.linked_task_id) lines.push(`  task      ${c.linked_task_id}`);
  if (c.branch_name) lines.push(`  branch    ${c.branch_name}`);
  if (c.worktree_path) lines.push(`  worktree  ${c.worktree_path}`);
  if (c.handoff_task_id) lines.push(`  handed to task ${c.handoff_task_id}`);
  for (const q of c.pending_input ? questionLines(c.pending_input) : [])
    lines.push(`  question  ${q}`);
  if (c.branch)
    lines.push(
      `  branch    ${c.branch.name}: ${c.branch.result}${c.branch.error ? ` (${c.branch.error})` : ''}`,
    );
  ctx.out(lines.join('\n'));
}

function emit(ctx: CommandContext, value: unknown, text: () => void): number {
  if (ctx.options.json) ctx.out(JSON.stringify(value, null, 2));
  else text();
  return EXIT.ok;
}

export const chatNew: Command = {
  name: 'chat new',
  summary: 'Open a chat: on a project (its own worktree) or on a stopped task (--task)',
  usage:
    'svc chat new (--project <id> --title <t> [--branch <existing>] | --task <id> [--title <t>]) [--agent a]',
  options: {
    project: { type: 'string', description: 'project id (a chat of its own)' },
    task: { type: 'string', description: 'open the chat on this stopped task instead' },
    title: { type: 'string', description: 'chat title (required with --project)' },
    branch: { type: 'string', description: 'work on this existing branch instead of a new one' },
    agent: { type: 'string', description: 'agent (default: the first that can resume)' },
    model: { type: 'string', description: 'model' },
    effort: { type: 'string', description: 'effort' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const o = ctx.options;
    const body: Record<string, unknown> = stringOptions(o, ['title', 'agent', 'model', 'effort']);
    let chat: Chat;
    if (typeof o.task === 'string') {
      if (typeof o.project === 'string' || typeof o.branch === 'string')
        throw new UsageError(
          '--task takes no --project or --branch: the chat works in the task’s worktree',
        );
      chat = await ctx.client().post<Chat>(`/v1/tasks/${positiveId(o.task, '--task')}/chat`, body);
    } else {
      if (typeof o.project !== 'string') throw new UsageError('--project (or --task) is required');
      if (typeof o.title !== 'string') throw new UsageError('--title is required');
      body.project_id = positiveId(o.project, '--project');
      if (typeof o.branch === 'string') {
        body.existing_branch = true;
        body.branch_name = o.branch;
      }
      chat = await ctx.client().post<Chat>('/v1/chats', body);
    }
    return emit(ctx, chat, () =>
      ctx.out(
        `chat ${chat.id} ${chat.state} with ${chat.agent}${chat.branch_name ? ` on ${chat.branch_name}` : ''}`,
      ),
    );
  },
};

export const chatList: Command = {
  name: 'chat list',
  summary: 'List chats, newest first (open ones unless --archived or --all)',
  options: {
    project: { type: 'string', description: 'only this project' },
    task: { type: 'string', description: 'only chats opened on this task' },
    state: { type: 'string', multiple: true, description: 'only this state (repeatable)' },
    archived: { type: 'boolean', description: 'only archived, handed-off and closed chats' },
    all: { type: 'boolean', description: 'every chat' },
    limit: { type: 'string', description: 'at most this many' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const o = ctx.options;
    const states = Array.isArray(o.state) ? o.state : [];
    const query = new URLSearchParams();
    if (o.all) query.set('archived', 'all');
    else if (o.archived) query.set('archived', 'true');
    if (typeof o.project === 'string')
      query.set('project_id', String(positiveId(o.project, '--project')));
    if (typeof o.task === 'string') query.set('task_id', String(positiveId(o.task, '--task')));
    if (typeof o.limit === 'string') query.set('limit', o.limit);
    for (const s of states) query.append('state', s);
    const qs = query.toString();
    const chats = await ctx.client().get<Chat[]>(`/v1/chats${qs ? `?${qs}` : ''}`);
    return emit(ctx, chats, () => {
      if (chats.length === 0) {
        ctx.out('no chats');
        return;
      }
      ctx.out(
        table([
          ['ID', 'STATE', 'AGENT', 'ON', 'AGE', 'TITLE'],
          ...chats.map((c) => [
            String(c.id),
            c.state,
            c.agent,
            c.linked_task_id ? `task ${c.linked_task_id}` : c.branch_name,
            elapsed(c.created_at, c.ended_at),
            truncate(c.title, 50),
          ]),
        ]),
      );
    });
  },
};

export const chatShow: Command = {
  name: 'chat show',
  summary: 'Show a chat and its turns',
  usage: 'svc chat show <id>',
  options: JSON_OPTION,
  async run(ctx) {
    const d = await ctx.client().get<{ chat: Chat; turns: Turn[] }>(`/v1/chats/${idArg(ctx)}`);
    return emit(ctx, d, () => {
      printChat(ctx, d.chat);
      if (d.turns.length === 0) return;
      ctx.out('');
      ctx.out(
        table([
          ['#', 'STATE', 'TIME', 'MESSAGE', 'NOTE'],
          ...d.turns.map((t) => [
            String(t.seq),
            t.state,
            elapsed(t.started_at, t.finished_at),
            truncate(t.message.replace(/\s+/g, ' '), 40),
            t.failure_reason ?? (t.cost_usd !== null ? `$${t.cost_usd.toFixed(4)}` : ''),
          ]),
        ]),
      );
    });
  },
};

export const chatSend: Command = {
  name: 'chat send',
  summary: 'Send a message and stream the turn’s output live until it ends',
  usage: 'svc chat send <id> <message…> [--detach]',
  options: {
    detach: { type: 'boolean', description: 'start the turn and return at once' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const id = idArg(ctx);
    const message = ctx.args.slice(1).join(' ');
    if (message.trim() === '') throw new UsageError('give a message');
    const client = ctx.client();
    if (ctx.options.detach || ctx.options.json) {
      const r = await client.post<{ chat: Chat; turn: Turn }>(`/v1/chats/${id}/send`, { message });
      return emit(ctx, r, () => ctx.out(`turn ${r.turn.seq} started`));
    }
    const end = await streamTurn(ctx, client, id, async () => {
      const sent = await client.post<{ turn: Turn }>(`/v1/chats/${id}/send`, { message });
      return sent.turn.seq;
    });
    return reportTurn(ctx, end, answerCommand(id, end.pending));
  },
};

export const chatAnswer: Command = {
  name: 'chat answer',
  summary: 'Answer the agent’s question (without an answer: show it with its options)',
  usage:
    'svc chat answer <id> [--answer "<question>=<value>" | --answer <value> ...] [--allow | --deny]',
  options: {
    answer: {
      type: 'string',
      multiple: true,
      description:
        'an answer: "<question text>=<value>", or the value alone when one question waits (repeatable)',
    },
    allow: { type: 'boolean', description: 'allow the permission asked for' },
    deny: { type: 'boolean', description: 'deny the permission asked for' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const id = idArg(ctx);
    const o = ctx.options;
    const raw = Array.isArray(o.answer) ? o.answer : [];
    if (o.allow && o.deny) throw new UsageError('give --allow or --deny, not both');
    if ((o.allow || o.deny) && raw.length > 0)
      throw new UsageError('a permission takes --allow or --deny; a question takes --answer');
    const client = ctx.client();
    const { chat: current } = await client.get<{ chat: Chat }>(`/v1/chats/${id}`);
    if (!current.pending_input) {
      ctx.err(`svc: chat ${id} is ${current.state}: no agent is waiting for an answer`);
      return EXIT.conflict;
    }
    if (raw.length === 0 && !o.allow && !o.deny) {
      return emit(ctx, current.pending_input, () => {
        for (const q of questionLines(current.pending_input)) ctx.out(`? ${q}`);
        ctx.out(answerCommand(id, current.pending_input));
      });
    }
    const body: Record<string, unknown> =
      o.allow || o.deny
        ? { allow: o.allow === true }
        : {
            answers: answersFrom(
              raw,
              current.pending_input.request ?? {
                kind: 'question',
                // A question the adapter did not spell out: its summary is the key.
                questions: [{ text: current.pending_input.summary }],
              },
            ),
          };
    const chat = await client.post<Chat>(`/v1/chats/${id}/answer`, body);
    return emit(ctx, chat, () => ctx.out(`chat ${chat.id} ${chat.state}`));
  },
};

function simple(
  name: string,
  summary: string,
  action: string,
  extra: Command['options'] = {},
): Command {
  return {
    name: `chat ${name}`,
    summary,
    usage: `svc chat ${name} <id>`,
    options: { ...extra, ...JSON_OPTION },
    async run(ctx) {
      const body = ctx.options.force ? { force: true } : undefined;
      const chat = await ctx.client().post<Chat>(`/v1/chats/${idArg(ctx)}/${action}`, body);
      return emit(ctx, chat, () => printChat(ctx, chat));
    },
  };
}

export const chatCancel = simple(
  'cancel',
  'Stop the live turn (the chat stays open, idle)',
  'cancel',
);
export const chatArchive = simple(
  'archive',
  'Archive an idle chat (its worktree removed), or a handed-off chat’s record',
  'archive',
  {
    force: { type: 'boolean', description: 'even with uncommitted changes' },
  },
);
export const chatClose = simple(
  'close',
  'End a chat opened on a task, lifting the task lock',
  'close',
);

export const chatHandoff: Command = {
  name: 'chat handoff',
  summary: 'Turn the chat into a task on its branch and worktree (uncommitted work kept)',
  usage: 'svc chat handoff <id> [--title t] [--workflow w] [--prompt p] [--paused]',
  options: {
    title: { type: 'string', description: 'task title (default: the chat’s)' },
    workflow: { type: 'string', description: 'workflow name' },
    prompt: {
      type: 'string',
      description: 'instructions for the new task’s agent (see svc task create --prompt)',
    },
    description: { type: 'string', description: 'task description' },
    paused: { type: 'boolean', description: 'create the task held' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const o = ctx.options;
    const body: Record<string, unknown> = stringOptions(o, [
      'title',
      'workflow',
      'prompt',
      'description',
    ]);
    if (o.paused) body.paused = true;
    const r = await ctx
      .client()
      .post<{ task: { id: number; state: string }; chat: Chat }>(
        `/v1/chats/${idArg(ctx)}/handoff`,
        body,
      );
    return emit(ctx, r, () =>
      ctx.out(`chat ${r.chat.id} handed off to task ${r.task.id} (${r.task.state})`),
    );
  },
};

export const chatRm: Command = {
  name: 'chat rm',
  summary: 'Delete an archived, handed-off or closed chat; --delete-branch removes its branch too',
  usage: 'svc chat rm <id> [--delete-branch]',
  options: {
    'delete-branch': { type: 'boolean', description: 'force-delete the chat’s branch' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const r = await ctx
      .client()
      .delete<{ id: number; branch?: { name: string; result: string } }>(
        `/v1/chats/${idArg(ctx)}`,
        ctx.options['delete-branch'] ? { delete_branch: 'true' } : undefined,
      );
    return emit(ctx, r, () =>
      ctx.out(
        `chat ${r.id} deleted${r.branch ? `; branch ${r.branch.name}: ${r.branch.result}` : ''}`,
      ),
    );
  },
};

export const chatCommands: Command[] = [
  chatNew,
  chatList,
  chatShow,
  chatSend,
  chatAnswer,
  chatCancel,
  chatArchive,
  chatHandoff,
  chatClose,
  chatRm,
  chatAttach,
];
