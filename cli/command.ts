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
  lines(): AsyncIterable<string>;
  /** Standard output as bytes (`svc task diff` passes a diff through unchanged). */
  stdout: Terminal;
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
    lines: lines ?? (() => createInterface({ input: process.stdin, terminal: false })),
  };
}
