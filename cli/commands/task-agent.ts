/**
 * `svc task answer` and `svc task repair` (SPEC §4.4): the two task actions that talk to an agent.
 * `answer` without an answer shows what the agent is waiting for; `--answer` values are matched to
 * the pending questions by their text (`"Which colour?=Blue"`), or go to the only question when
 * there is one; repeat `--answer` for a multi-select question. `--allow`/`--deny` answer a
 * permission. `repair` sends a literal prompt; the daemon wraps the failure context around it.
 */
import { type Command, type CommandContext, JSON_OPTION, stringOptions } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { positiveId, UsageError } from '../format.js';

interface PendingInput {
  kind: 'question' | 'permission';
  questions?: Array<{
    text: string;
    header?: string;
    options?: string[];
    option_descriptions?: string[];
    multi_select?: boolean;
  }>;
  permission?: { tool: string; summary: string };
}

interface TaskReply {
  id: number;
  state: string;
  pending_input?: PendingInput;
  warnings?: string[];
}

const idArg = (ctx: CommandContext) => positiveId(ctx.args[0], 'task');

/** Human text for a pending request: the questions with their options, or the permission asked. */
export function describePending(p: PendingInput): string {
  if (p.kind === 'permission')
    return `permission: ${p.permission?.tool ?? '?'} ${p.permission?.summary ?? ''}`.trimEnd();
  return (p.questions ?? [])
    .map((q) => {
      const options = (q.options ?? []).map((o, i) => {
        const d = q.option_descriptions?.[i];
        return `\n    ${i + 1}. ${o}${d ? ` — ${d}` : ''}`;
      });
      return `question: ${q.text}${options.length ? `\n  options${q.multi_select ? ' (several allowed)' : ''}:${options.join('')}` : ''}`;
    })
    .join('\n');
}

/** `--answer` values to the answers object, keyed by question text. */
export function answersFrom(
  raw: string[],
  pending: PendingInput,
): Record<string, string | string[]> {
  const questions = pending.questions ?? [];
  const out: Record<string, string[]> = {};
  for (const item of raw) {
    const q = questions.find((x) => item.startsWith(`${x.text}=`));
    let text: string;
    let value: string;
    if (q) {
      text = q.text;
      value = item.slice(q.text.length + 1);
    } else if (questions.length === 1 && questions[0]) {
      text = questions[0].text;
      value = item;
    } else {
      throw new UsageError(
        `--answer ${JSON.stringify(item)} names none of the questions; write "<question>=<value>" with one of: ${questions.map((x) => JSON.stringify(x.text)).join(', ')}`,
      );
    }
    out[text] = [...(out[text] ?? []), value];
  }
  return Object.fromEntries(
    Object.entries(out).map(([k, v]) => [k, v.length === 1 ? (v[0] as string) : v]),
  );
}

function report(ctx: CommandContext, t: TaskReply): void {
  if (ctx.options.json) ctx.out(JSON.stringify(t, null, 2));
  else {
    ctx.out(`task ${t.id} ${t.state}`);
    for (const w of t.warnings ?? []) ctx.err(`warning: ${w}`);
  }
}

export const taskAnswer: Command = {
  name: 'task answer',
  summary: 'Answer the question or permission an agent is waiting on (without one: show it)',
  usage: 'svc task answer <id> [--answer "<question>=<value>" ...] [--allow | --deny] [--json]',
  options: {
    answer: {
      type: 'string',
      multiple: true,
      description:
        'an answer: "<question text>=<value>", or the value alone when one question waits',
    },
    allow: { type: 'boolean', description: 'allow the permission the agent asks for' },
    deny: { type: 'boolean', description: 'refuse the permission the agent asks for' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const id = idArg(ctx);
    const o = ctx.options;
    const raw = Array.isArray(o.answer) ? o.answer : typeof o.answer === 'string' ? [o.answer] : [];
    if (o.allow && o.deny) throw new UsageError('give --allow or --deny, not both');
    if ((o.allow || o.deny) && raw.length > 0)
      throw new UsageError('a permission takes --allow or --deny; a question takes --answer');
    const task = await ctx.client().get<TaskReply>(`/v1/tasks/${id}`);
    if (raw.length === 0 && !o.allow && !o.deny) {
      if (!task.pending_input) {
        ctx.err(`task ${id} is ${task.state}: no agent is waiting for an answer`);
        return EXIT.conflict;
      }
      if (o.json) ctx.out(JSON.stringify(task.pending_input, null, 2));
      else ctx.out(describePending(task.pending_input));
      return EXIT.ok;
    }
    const body =
      o.allow || o.deny
        ? { allow: o.allow === true }
        : { answers: answersFrom(raw, task.pending_input ?? { kind: 'question' }) };
    report(ctx, await ctx.client().post<TaskReply>(`/v1/tasks/${id}/answer`, body));
    return EXIT.ok;
  },
};

export const taskRepair: Command = {
  name: 'task repair',
  summary:
    'Run an agent on a blocked task with the failure in context; the task returns to blocked',
  usage: 'svc task repair <id> --prompt <text> [--agent a] [--model m] [--effort e] [--json]',
  options: {
    prompt: { type: 'string', description: 'what the agent should do (literal text, required)' },
    agent: { type: 'string', description: 'agent to run (default: as the task resolves it)' },
    model: { type: 'string', description: 'model for the repair run' },
    effort: { type: 'string', description: 'effort for the repair run' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const id = idArg(ctx);
    const o = ctx.options;
    if (typeof o.prompt !== 'string' || o.prompt.trim() === '')
      throw new UsageError('--prompt is required and must not be blank');
    const body = { prompt: o.prompt, ...stringOptions(o, ['agent', 'model', 'effort']) };
    report(ctx, await ctx.client().post<TaskReply>(`/v1/tasks/${id}/repair`, body));
    return EXIT.ok;
  },
};

export const taskAgentCommands: Command[] = [taskAnswer, taskRepair];
