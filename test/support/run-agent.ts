/**
 * A minimal stand-in for the engine's agent runner, for tests of adapters against fake and real
 * CLIs: writes the plan's files, spawns the binary with the plan's argv and env, feeds stdin as
 * planned (closing it, or keeping it open and answering input requests), pushes every stdout line
 * through the adapter's parser and returns the verdict. The real engine adds the environment
 * policy, timeouts, tree kill and transcripts.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { probeRunner } from '../../kernel/agents/index.js';
import type {
  AgentAdapter,
  AgentEvent,
  AgentRunPlan,
  AgentVerdict,
  InputRequest,
  ParserOptions,
  ProbeRunner,
} from '../../kernel/plugin/index.js';

export interface RunAgentOptions {
  adapter: AgentAdapter;
  binary: string;
  plan: AgentRunPlan;
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Called for each input request; returns the stdin text to write (e.g. `adapter.input.answer(...)`). */
  respond?: (request: InputRequest) => string;
  parserOptions?: ParserOptions;
  timeoutMs?: number;
  now?: Date;
}

export interface RunAgentResult {
  lines: string[];
  events: AgentEvent[];
  verdict: AgentVerdict;
  code: number | null;
  signal: string | null;
  stderr: string;
}

export async function runAgent(opts: RunAgentOptions): Promise<RunAgentResult> {
  for (const f of opts.plan.files) {
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.content, { mode: 0o600 });
  }
  const child = spawn(opts.binary, opts.plan.args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env, ...opts.plan.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const parser = opts.adapter.createParser(opts.parserOptions);
  const lines: string[] = [];
  const events: AgentEvent[] = [];
  let stderr = '';
  let buffered = '';
  const interactive = opts.plan.stdin.kind === 'interactive';

  child.stdin.on('error', () => {
    // the child may exit before reading everything (a crash scenario); the verdict says so
  });
  child.stdin.write(opts.plan.stdin.data);
  if (!interactive) child.stdin.end();

  const onLine = (line: string) => {
    lines.push(line);
    for (const ev of parser.push(line)) {
      events.push(ev);
      // Like the engine: never wait on a request that cannot be rendered.
      if (ev.type === 'error' && ev.reason === 'input_protocol_error') child.kill('SIGTERM');
      if (!interactive) continue;
      if (ev.type === 'input_request' && opts.respond) child.stdin.write(opts.respond(ev.request));
      if (ev.type === 'result') child.stdin.end();
    }
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let nl = buffered.indexOf('\n');
    while (nl >= 0) {
      onLine(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf('\n');
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-65536);
  });

  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
  const { code, signal } = await new Promise<{ code: number | null; signal: string | null }>(
    (resolve) => child.on('close', (c, s) => resolve({ code: c, signal: s })),
  );
  clearTimeout(timer);
  if (buffered !== '') onLine(buffered);
  const verdict = parser.finish({
    code,
    signal,
    stderr_tail: stderr,
    now: opts.now ?? new Date(),
  });
  return { lines, events, verdict, code, signal, stderr };
}

/** The kernel's probe runner over the test process's environment plus `env`. */
export function spawnProbeRunner(
  binary: string,
  env: Record<string, string | undefined> = {},
): ProbeRunner {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env }))
    if (v !== undefined) merged[k] = v;
  return probeRunner(binary, merged, process.cwd());
}
