/**
 * Reviewing a task from the command line (issue 16 points 2 and 5): `svc task diff` prints what the
 * task changed — coloured, and through `$PAGER`, only on a terminal (decision 173) — and
 * `svc task follow-up` sends one more round, including a review file of `path:line: comment` lines
 * that the daemon composes with the hunks they point into (decision 172).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ApiError } from '../client.js';
import { type Command, type CommandContext, JSON_OPTION, stringOptions } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { positiveId, UsageError } from '../format.js';

const idArg = (ctx: CommandContext) => positiveId(ctx.args[0], 'task');

interface StatFile {
  path: string;
  old_path?: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  additions: number;
  deletions: number;
  binary: boolean;
}

interface Stat {
  source: 'worktree' | 'branch';
  files: StatFile[];
  additions: number;
  deletions: number;
  truncated: boolean;
}

const ESC = '\u001b[';
const SGR = {
  bold: `${ESC}1m`,
  red: `${ESC}31m`,
  green: `${ESC}32m`,
  cyan: `${ESC}36m`,
  reset: `${ESC}m`,
};

/** Colour only for a terminal, and never when NO_COLOR is set to anything (no-color.org). */
export function wantsColour(isTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  return isTTY && (env.NO_COLOR ?? '') === '';
}

/**
 * The pager's argv on a terminal: `$PAGER` split on blanks (no shell), `less -R` when unset; none
 * when not a terminal, when `$PAGER` is empty or `cat`, or with `--no-pager`.
 */
export function pagerFor(isTTY: boolean, env: NodeJS.ProcessEnv, noPager = false): string[] | null {
  if (!isTTY || noPager) return null;
  const raw = env.PAGER === undefined ? 'less -R' : env.PAGER;
  const argv = raw.trim().split(/\s+/).filter(Boolean);
  if (argv.length === 0 || argv[0] === 'cat') return null;
  return argv;
}

/** git's colours: file headers bold, hunk headers cyan, added lines green, removed lines red. */
export function colourDiff(text: Buffer): Buffer {
  const out: Buffer[] = [];
  let inHeader = false;
  let start = 0;
  const paint = (line: Buffer): Buffer => {
    const s = line.toString('latin1');
    if (s.startsWith('diff --git ')) inHeader = true;
    else if (s.startsWith('@@')) inHeader = false;
    const colour = inHeader
      ? SGR.bold
      : s.startsWith('@@')
        ? SGR.cyan
        : s.startsWith('+')
          ? SGR.green
          : s.startsWith('-')
            ? SGR.red
            : null;
    if (!colour || line.length === 0) return line;
    // A CR of a CRLF line stays outside the colour, as git leaves it.
    const cr = line[line.length - 1] === 0x0d ? 1 : 0;
    return Buffer.concat([
      Buffer.from(colour),
      line.subarray(0, line.length - cr),
      Buffer.from(SGR.reset),
      line.subarray(line.length - cr),
    ]);
  };
  while (start < text.length) {
    const nl = text.indexOf(0x0a, start);
    const end = nl < 0 ? text.length : nl;
    out.push(paint(text.subarray(start, end)));
    if (nl >= 0) out.push(Buffer.from('\n'));
    start = end + 1;
  }
  return Buffer.concat(out);
}

/** Hands `bytes` to the pager, or writes them when there is none (or it cannot start). */
async function page(ctx: CommandContext, bytes: Buffer, pager: string[] | null): Promise<void> {
  if (!pager || bytes.length === 0) {
    await ctx.stdout.write(bytes);
    return;
  }
  const [file, ...args] = pager as [string, ...string[]];
  // As git does: quit at once when it fits on one screen, keep colours, leave the screen as it is.
  const env = { ...ctx.env, LESS: ctx.env.LESS ?? 'FRX', LV: ctx.env.LV ?? '-c' };
  const started = await new Promise<boolean>((resolve) => {
    const child = spawn(file, args, { stdio: ['pipe', 'inherit', 'inherit'], env });
    child.on('error', () => resolve(false));
    child.on('spawn', () => {
      // A pager quit before reading everything is the user's choice, not an error.
      child.stdin.on('error', () => {});
      child.stdin.end(bytes);
    });
    child.on('close', () => resolve(true));
  });
  if (!started) await ctx.stdout.write(bytes);
}

function statLine(f: StatFile, colour: boolean): string {
  const mark = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R' }[f.status];
  const name = f.old_path ? `${f.old_path} → ${f.path}` : f.path;
  if (f.binary) return `${mark} ${name}  (binary)`;
  const plus = `+${f.additions}`;
  const minus = `-${f.deletions}`;
  return colour
    ? `${mark} ${name}  ${SGR.green}${plus}${SGR.reset} ${SGR.red}${minus}${SGR.reset}`
    : `${mark} ${name}  ${plus} ${minus}`;
}

function notes(
  ctx: CommandContext,
  source: string,
  truncated: boolean,
  id: number,
  run: number | undefined,
): void {
  if (source === 'branch')
    ctx.err(
      run === undefined
        ? `svc: task ${id}'s worktree is gone: showing its branch, committed work only`
        : `svc: step run ${run} is not task ${id}'s latest: showing the commits it made only`,
    );
  if (truncated)
    ctx.err(
      `svc: the diff passed 16 MiB and was cut after the last whole file; see one file with \`svc task diff ${id} <path>\``,
    );
}

export const taskDiff: Command = {
  name: 'task diff',
  summary: 'Show what a task changed: its worktree (untracked files too) against its base',
  usage: 'svc task diff <id> [<path>] [--stat | --name-only] [--run <step run id>] [--no-pager]',
  options: {
    stat: { type: 'boolean', description: 'files with their +/- counts instead of the diff' },
    'name-only': { type: 'boolean', description: 'only the names of the changed files' },
    run: { type: 'string', description: 'only what that step run changed (`svc task steps`)' },
    'no-pager': { type: 'boolean', description: 'never page, even on a terminal' },
    json: { type: 'boolean', description: 'print the stat as JSON (the API’s `stat=true` answer)' },
  },
  async run(ctx) {
    const id = idArg(ctx);
    const path = ctx.args[1];
    const o = ctx.options;
    if (ctx.args.length > 2) throw new UsageError('give one task id and at most one path');
    if (o.stat && o['name-only']) throw new UsageError('give --stat or --name-only, not both');
    if (path !== undefined && (o.stat || o['name-only']))
      throw new UsageError('a path shows one file’s diff; --stat and --name-only list files');
    const run = typeof o.run === 'string' ? positiveId(o.run, 'run') : undefined;
    const colour = wantsColour(ctx.stdout.isTTY, ctx.env);
    const client = ctx.client();
    const query = { ...(run !== undefined ? { run } : {}), ...(path ? { path } : {}) };
    if (o.stat || o['name-only'] || o.json) {
      const stat = await client.get<Stat>(`/v1/tasks/${id}/diff`, { ...query, stat: 'true' });
      if (o.json) ctx.out(JSON.stringify(stat, null, 2));
      else if (o['name-only']) for (const f of stat.files) ctx.out(f.path);
      else {
        for (const f of stat.files) ctx.out(statLine(f, colour));
        const n = stat.files.length;
        ctx.out(
          n === 0
            ? 'no changes'
            : `${n} file${n === 1 ? '' : 's'} changed, ${stat.additions} insertion${stat.additions === 1 ? '' : 's'}(+), ${stat.deletions} deletion${stat.deletions === 1 ? '' : 's'}(-)`,
        );
      }
      notes(ctx, stat.source, stat.truncated, id, run);
      return EXIT.ok;
    }
    const res = await client.raw('GET', `/v1/tasks/${id}/diff`, { query });
    const body = Buffer.from(await res.arrayBuffer());
    if (!res.ok) {
      const e = (JSON.parse(body.toString('utf8') || '{}') as { error?: ApiErrorBody }).error;
      throw new ApiError(
        res.status,
        e?.code ?? 'unknown',
        e?.message ?? `HTTP ${res.status}`,
        e?.details,
      );
    }
    notes(
      ctx,
      res.headers.get('x-svc-diff-source') ?? 'worktree',
      res.headers.get('x-svc-diff-truncated') === 'true',
      id,
      run,
    );
    await page(
      ctx,
      colour ? colourDiff(body) : body,
      pagerFor(ctx.stdout.isTTY, ctx.env, o['no-pager'] === true),
    );
    return EXIT.ok;
  },
};

interface ApiErrorBody {
  code?: string;
  message?: string;
  details?: Record<string, unknown>;
}

export interface ReviewComment {
  path: string;
  line: number;
  body: string;
}

const COMMENT = /^(\S(?:.*?\S)?):([1-9]\d*):(?:\s(.*))?$/;

/**
 * A review file: `path:line: comment` lines. A comment goes on over the following lines up to the
 * next `path:line:`; what comes before the first comment is the summary (docs/tasks.md).
 */
export function parseReviewFile(text: string): { summary: string; comments: ReviewComment[] } {
  const comments: Array<ReviewComment & { at: number }> = [];
  const summary: string[] = [];
  text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .forEach((line, i) => {
      const m = COMMENT.exec(line);
      if (m)
        comments.push({ path: m[1] as string, line: Number(m[2]), body: m[3] ?? '', at: i + 1 });
      else if (comments.length > 0) {
        const last = comments[comments.length - 1] as ReviewComment;
        last.body = `${last.body}\n${line}`;
      } else summary.push(line);
    });
  for (const c of comments) {
    c.body = c.body.trim();
    if (c.body === '')
      throw new UsageError(`line ${c.at} of the review file (${c.path}:${c.line}) has no comment`);
  }
  const out = {
    summary: summary.join('\n').trim(),
    comments: comments.map(({ at: _, ...c }) => c),
  };
  if (out.comments.length === 0 && out.summary === '')
    throw new UsageError('the review file holds no comment: write lines of `path:line: comment`');
  return out;
}

async function readReview(ctx: CommandContext, file: string): Promise<string> {
  if (file !== '-') {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read the review file ${file}: ${(err as Error).message}`);
    }
  }
  const lines: string[] = [];
  const reader = ctx.lines();
  try {
    for (let line = await reader.next(); line !== null; line = await reader.next())
      lines.push(line);
  } finally {
    reader.close();
  }
  return lines.join('\n');
}

interface ReviewReply {
  id?: number;
  state?: string;
  warnings?: string[];
  review: { action: 'follow_up' | 'reject_repair' | 'repair'; prompt: string };
}

const ACTION_WORDS = {
  follow_up: 'as a follow-up',
  reject_repair: 'as a reject, then a repair at the gate',
  repair: 'as a repair',
};

export const taskFollowUp: Command = {
  name: 'task follow-up',
  summary:
    'Run one more round on a task: a prompt, a command, a workflow, or a review file of line comments',
  usage:
    'svc task follow-up <id> (--prompt <text> | --run <command> | --workflow <name> | --review <file>) [--agent …] [--model …] [--effort …]',
  options: {
    prompt: { type: 'string', description: 'an agent prompt' },
    run: { type: 'string', description: 'a shell command' },
    workflow: { type: 'string', description: 'a workflow name' },
    review: {
      type: 'string',
      description:
        'a file of `path:line: comment` lines (`-`: stdin), sent with the hunks they point into; at a gate it rejects, then repairs',
    },
    'dry-run': { type: 'boolean', description: 'with --review: print the composed prompt only' },
    agent: { type: 'string', description: 'agent for a prompt or review' },
    model: { type: 'string', description: 'model for a prompt or review' },
    effort: { type: 'string', description: 'effort for a prompt or review' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const id = idArg(ctx);
    const o = ctx.options;
    const given = (['prompt', 'run', 'workflow', 'review'] as const).filter(
      (k) => typeof o[k] === 'string',
    );
    if (given.length !== 1)
      throw new UsageError('give exactly one of --prompt, --run or --workflow, or --review <file>');
    if (o['dry-run'] && typeof o.review !== 'string')
      throw new UsageError('--dry-run goes with --review');
    const extra = stringOptions(o, ['agent', 'model', 'effort']);
    if (typeof o.review !== 'string') {
      const t = await ctx
        .client()
        .post<{ id: number; state: string; warnings?: string[] }>(
          `/v1/tasks/${id}/follow_up`,
          stringOptions(o, ['prompt', 'run', 'workflow', 'agent', 'model', 'effort']),
        );
      if (o.json) ctx.out(JSON.stringify(t, null, 2));
      else {
        ctx.out(`task ${t.id} ${t.state}`);
        for (const w of t.warnings ?? []) ctx.err(`warning: ${w}`);
      }
      return EXIT.ok;
    }
    const parsed = parseReviewFile(await readReview(ctx, o.review));
    const body = {
      ...(parsed.summary ? { summary: parsed.summary } : {}),
      ...(parsed.comments.length > 0 ? { comments: parsed.comments } : {}),
      ...extra,
      ...(o['dry-run'] ? { dry_run: true } : {}),
    };
    const r = await ctx.client().post<ReviewReply>(`/v1/tasks/${id}/review`, body);
    if (o.json) ctx.out(JSON.stringify(r, null, 2));
    else if (o['dry-run']) ctx.out(r.review.prompt);
    else {
      const n = parsed.comments.length;
      ctx.out(
        `task ${r.id} ${r.state} (review of ${n} comment${n === 1 ? '' : 's'} sent ${ACTION_WORDS[r.review.action]})`,
      );
      for (const w of r.warnings ?? []) ctx.err(`warning: ${w}`);
    }
    return EXIT.ok;
  },
};

export const taskReviewCommands: Command[] = [taskDiff, taskFollowUp];
