/**
 * Commands are data (name, summary, options, positionals) plus a run function, so the CLI
 * reference in docs/cli.md is generated from the same definitions the parser uses.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { Paths } from '../kernel/daemon/index.js';
import { Client } from './client.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  description: string;
}

/** Standard output as bytes, and whether it is a terminal (colour and paging depend on it). */
export interface Terminal {
  isTTY: boolean;
  write(bytes: Uint8Array): Promise<void>;
}

/** The process's own standard output. */
export const processStdout: Terminal = {
  get isTTY() {
    return process.stdout.isTTY === true;
  },
  write: (bytes) =>
    new Promise((resolve, reject) =>
      process.stdout.write(bytes, (err) => (err ? reject(err) : resolve())),
    ),
};

/** A stand-in for standard output that hands text to `out` (tests, embedders): never a terminal. */
export function textTerminal(out: (text: string) => void): Terminal {
  return {
    isTTY: false,
    write: async (bytes) => {
      const text = Buffer.from(bytes).toString('utf8');
      if (text !== '') out(text.endsWith('\n') ? text.slice(0, -1) : text);
    },
  };
}

export interface CommandContext {
  paths: Paths;
  args: string[];
  options: Record<string, string | boolean | string[] | undefined>;
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
  client(): Client;
  /** Lines the user types (`svc chat attach`): the terminal's stdin unless a caller supplies them. */
  lines(): LineReader;
  /** Standard output as bytes (`svc task diff` passes a diff through unchanged). */
  stdout: Terminal;
}

/**
 * What the user types, a line at a time. In a terminal it is a readline prompt (line editing,
 * Ctrl-C and Ctrl-D reach the command); piped, or supplied by a test, it is the lines as they come.
 */
export interface LineReader {
  /** True when a person types at a terminal (prompts are shown). */
  readonly interactive: boolean;
  /** The next line, or null at the end of input (Ctrl-D, end of the pipe, close()). */
  next(): Promise<string | null>;
  /** Shows a prompt and waits for a line after it (a terminal only; otherwise nothing). */
  prompt(text: string): void;
  /** Ctrl-C at the terminal calls `fn` instead of ending the process (null: Ctrl-C ends input). */
  onInterrupt(fn: (() => void) | null): void;
  /** Stops reading, so nothing keeps the process alive after the command returns. */
  close(): void;
}

/** A LineReader over lines a caller supplies (tests, `Io.lines`). */
export function iterableLines(source: AsyncIterable<string>): LineReader {
  const it = source[Symbol.asyncIterator]();
  let closed = false;
  return {
    interactive: false,
    next: async () => {
      if (closed) return null;
      const r = await it.next();
      return r.done ? null : r.value;
    },
    prompt: () => {},
    onInterrupt: () => {},
    close: () => {
      closed = true;
      void it.return?.();
    },
  };
}

/**
 * The terminal's stdin as a LineReader. A terminal gets readline's own prompt and line editing;
 * its Ctrl-C is a key, not a signal, so the command decides what it means. Closing releases the
 * terminal (raw mode off, stdin paused), which is what lets the process exit after `/quit`.
 */
export function stdinLines(): LineReader {
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const rl = createInterface({
    input: process.stdin,
    ...(interactive ? { output: process.stdout, terminal: true } : { terminal: false }),
  });
  const queue: string[] = [];
  let waiting: ((line: string | null) => void) | null = null;
  let ended = false;
  let interrupt: (() => void) | null = null;
  // Ctrl-D or Ctrl-C at a prompt leaves the cursor after it: end that line before anything else.
  let prompting = false;
  rl.on('line', (line) => {
    prompting = false;
    if (waiting) {
      const w = waiting;
      waiting = null;
      w(line);
    } else queue.push(line);
  });
  rl.on('close', () => {
    if (prompting) process.stdout.write('\n');
    prompting = false;
    ended = true;
    waiting?.(null);
    waiting = null;
  });
  rl.on('SIGINT', () => {
    if (interrupt) interrupt();
    else rl.close();
  });
  return {
    interactive,
    next: () => {
      const line = queue.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    prompt: (text) => {
      if (!interactive || ended) return;
      rl.setPrompt(text);
      rl.prompt();
      prompting = true;
    },
    onInterrupt: (fn) => {
      interrupt = fn;
    },
    close: () => {
      rl.close();
      process.stdin.pause();
    },
  };
}

export interface Command {
  /** Words after `svc`, e.g. `daemon start`. */
  name: string;
  summary: string;
  usage?: string;
  options?: Record<string, OptionSpec>;
  run(ctx: CommandContext): Promise<number>;
}

export const JSON_OPTION: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'print the API response as JSON' },
};

/** The string options among `keys` that were given, in `keys` order: request fields passed as typed. */
export function stringOptions(
  options: CommandContext['options'],
  keys: readonly string[],
): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const k of keys) {
    const v = options[k];
    if (typeof v === 'string') picked[k] = v;
  }
  return picked;
}

export function parseCommandArgs(cmd: Command, argv: string[]) {
  const options: Record<
    string,
    { type: 'string' | 'boolean'; short?: string; multiple?: boolean }
  > = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [k, v] of Object.entries(cmd.options ?? {}))
    options[k] = {
      type: v.type,
      ...(v.short ? { short: v.short } : {}),
      ...(v.multiple ? { multiple: true } : {}),
    };
  return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
}

export function makeContext(
  paths: Paths,
  env: NodeJS.ProcessEnv,
  parsed: { values: Record<string, unknown>; positionals: string[] },
  out: (t: string) => void,
  err: (t: string) => void,
  lines?: () => AsyncIterable<string>,
  stdout: Terminal = processStdout,
): CommandContext {
  let client: Client | null = null;
  return {
    stdout,
    paths,
    env,
    args: parsed.positionals,
    options: parsed.values as CommandContext['options'],
    out,
    err,
    client: () => {
      client ??= Client.discover(paths);
      return client;
    },
    lines: () => (lines ? iterableLines(lines()) : stdinLines()),
  };
}
