/**
 * cli: the command line, a client of the HTTP API and nothing else (SPEC §1). One file per
 * command group under commands/; the dispatcher picks the longest matching command name.
 */
import { resolvePaths } from '../kernel/daemon/index.js';
import { VERSION } from '../kernel/version.js';
import { ApiError, DaemonUnreachableError } from './client.js';
import {
  type Command,
  makeContext,
  parseCommandArgs,
  processStdout,
  type Terminal,
  textTerminal,
} from './command.js';
import { agentCommands } from './commands/agents.js';
import { chatCommands } from './commands/chat.js';
import { configCommands } from './commands/config.js';
import { daemonCommands } from './commands/daemon.js';
import { doctorCommands } from './commands/doctor.js';
import { maintenanceCommands } from './commands/maintenance.js';
import { mcpCommands } from './commands/mcp.js';
import { projectCommands } from './commands/projects.js';
import { taskAgentCommands } from './commands/task-agent.js';
import { taskReviewCommands } from './commands/task-review.js';
import { taskCommands } from './commands/tasks.js';
import { triggerCommands } from './commands/triggers.js';
import { tuiCommands } from './commands/tui.js';
import { uiCommands } from './commands/ui.js';
import { workflowCommands } from './commands/workflow.js';
import { envelopeJson, renderApiError } from './errors.js';
import { EXIT, exitCodeForError } from './exit-codes.js';
import { UsageError } from './format.js';
import { maxPositionals } from './usage-args.js';

export const commands: Command[] = [
  ...daemonCommands,
  ...configCommands,
  ...workflowCommands,
  ...triggerCommands,
  ...doctorCommands,
  ...maintenanceCommands,
  ...projectCommands,
  ...taskCommands,
  ...taskAgentCommands,
  ...taskReviewCommands,
  ...chatCommands,
  ...agentCommands,
  ...mcpCommands,
  ...tuiCommands,
  ...uiCommands,
];

function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `svc ${VERSION} — supervise coding agents`,
    '',
    'Usage: svc <command> [options]',
    '',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `svc <command> --help` for a command’s options.',
  ].join('\n');
}

/** The commands of a group (`chat`, `task`, …): every command whose name starts with `group `. */
function groupOf(word: string | undefined): Command[] {
  return word ? commands.filter((c) => c.name.startsWith(`${word} `)) : [];
}

function groupHelp(group: string, members: Command[]): string {
  const width = Math.max(...members.map((c) => c.name.length));
  return [
    `Usage: svc ${group} <command> [options]`,
    '',
    ...members.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    `Run \`svc ${group} <command> --help\` for a command’s options.`,
  ].join('\n');
}

const HELP_WORDS = new Set(['--help', '-h', 'help']);

function commandHelp(cmd: Command): string {
  const lines = [cmd.usage ?? `svc ${cmd.name}`, '', cmd.summary];
  const opts = Object.entries(cmd.options ?? {});
  if (opts.length > 0) {
    lines.push('', 'Options:');
    for (const [k, v] of opts)
      lines.push(`  --${k}${v.type === 'string' ? ' <value>' : ''}  ${v.description}`);
  }
  return lines.join('\n');
}

export function findCommand(argv: string[]): { cmd: Command; rest: string[] } | null {
  let best: { cmd: Command; rest: string[] } | null = null;
  for (const cmd of commands) {
    const words = cmd.name.split(' ');
    if (
      words.every((w, i) => argv[i] === w) &&
      (!best || words.length > best.cmd.name.split(' ').length)
    ) {
      best = { cmd, rest: argv.slice(words.length) };
    }
  }
  return best;
}

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** What the user types, line by line (tests); the terminal's stdin otherwise. */
  lines?: () => AsyncIterable<string>;
  /** Standard output as bytes; without it, `out` gets the text (never a terminal). */
  stdout?: Terminal;
}

export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  io?: Io,
): Promise<number> {
  const out = io?.out ?? ((t: string) => process.stdout.write(`${t}\n`));
  const err = io?.err ?? ((t: string) => process.stderr.write(`${t}\n`));
  if (
    argv.length === 0 ||
    (argv[0] === 'help' && argv.length === 1) ||
    argv[0] === '--help' ||
    argv[0] === '-h'
  ) {
    out(usage());
    return argv.length === 0 ? EXIT.usage : EXIT.ok;
  }
  if (argv[0] === '--version' || argv[0] === 'version') {
    out(VERSION);
    return EXIT.ok;
  }
  // `svc help task create` reads as `svc task create --help`.
  if (argv[0] === 'help') return main([...argv.slice(1), '--help'], env, io);
  const found = findCommand(argv);
  if (!found) {
    // A group without a command of its own (`svc chat`, `svc chat --help`, `svc chat sned`).
    const members = groupOf(argv[0]);
    if (members.length > 0) {
      if (argv.length === 1) {
        out(groupHelp(argv[0] as string, members));
        return EXIT.usage;
      }
      if (argv.length === 2 && HELP_WORDS.has(argv[1] as string)) {
        out(groupHelp(argv[0] as string, members));
        return EXIT.ok;
      }
      err(`svc: unknown command "${argv.join(' ')}"\n\n${groupHelp(argv[0] as string, members)}`);
      return EXIT.usage;
    }
    err(`svc: unknown command "${argv.join(' ')}"\n\n${usage()}`);
    return EXIT.usage;
  }
  let parsed: ReturnType<typeof parseCommandArgs>;
  try {
    parsed = parseCommandArgs(found.cmd, found.rest);
  } catch (e) {
    err(`svc ${found.cmd.name}: ${(e as Error).message}`);
    return EXIT.usage;
  }
  if (parsed.values.help) {
    out(commandHelp(found.cmd));
    return EXIT.ok;
  }
  // `svc task approve 1 2` must not approve task 1 and say nothing of task 2.
  const usageLine = found.cmd.usage ?? `svc ${found.cmd.name}`;
  const extra = parsed.positionals.slice(maxPositionals(usageLine, found.cmd.name));
  if (extra.length > 0) {
    const what = extra.length === 1 ? 'argument' : 'arguments';
    err(
      `svc ${found.cmd.name}: unexpected ${what} ${extra.map((a) => JSON.stringify(a)).join(' ')}\n\nUsage: ${usageLine}`,
    );
    return EXIT.usage;
  }
  // Writing to our own stdout: wait for the pipe to take what was written (ctx.drained).
  const drain = io?.out
    ? undefined
    : () =>
        process.stdout.writableNeedDrain
          ? new Promise<void>((r) => process.stdout.once('drain', () => r()))
          : Promise.resolve();
  const stdout = io?.stdout ?? (io?.out ? textTerminal(out) : processStdout);
  const ctx = makeContext(resolvePaths(env), env, parsed, out, err, io?.lines, stdout, drain);
  try {
    return await found.cmd.run(ctx);
  } catch (e) {
    if (e instanceof ApiError) {
      // A sentence with the field and the fix; the envelope itself only for --json (decision 203).
      err(
        parsed.values.json === true
          ? envelopeJson(e)
          : `svc: ${renderApiError(e, found.cmd.fieldFlags)}`,
      );
      return exitCodeForError(e.code, e.status);
    }
    if (e instanceof UsageError) {
      err(`svc ${found.cmd.name}: ${e.message}`);
      return EXIT.usage;
    }
    if (e instanceof DaemonUnreachableError) {
      err(`svc: ${e.message}`);
      return EXIT.daemon_unreachable;
    }
    err(`svc: ${(e as Error).message}`);
    return EXIT.failure;
  }
}
