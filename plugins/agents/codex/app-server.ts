import type { ProbeContext, ProbeOutcome } from '../../../kernel/plugin/index.js';
import { isRecord, parseLine } from '../../../kernel/plugin/index.js';

/**
 * `codex app-server` speaks newline-delimited JSON-RPC 2.0 on stdio (its replies omit "jsonrpc").
 * It drops requests still in flight when stdin closes, so stdin stays open until the last
 * request's reply is on stdout (`ProbeCommand.until`). Works offline and without a login.
 */
export type RpcReply = { result: unknown } | { error: { code?: number; message: string } };

export const CLIENT_INFO = { name: 'svc', title: 'svc daemon', version: '1.0.0' };

/** The handshake plus one request with id 2; returns the lines to write. */
export function rpcScript(method: string, params?: unknown): string {
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: CLIENT_INFO } },
    { jsonrpc: '2.0', method: 'initialized' },
    { jsonrpc: '2.0', id: 2, method, ...(params !== undefined && { params }) },
  ];
  return lines.map((l) => `${JSON.stringify(l)}\n`).join('');
}

/** The reply to request `id` in app-server stdout, if it is there. */
export function findReply(stdout: string, id: number): RpcReply | undefined {
  for (const line of stdout.split('\n')) {
    const obj = parseLine(line);
    if (!obj || obj.id !== id) continue;
    if (isRecord(obj.error)) {
      const message = typeof obj.error.message === 'string' ? obj.error.message : 'error';
      const code = typeof obj.error.code === 'number' ? obj.error.code : undefined;
      return { error: { ...(code !== undefined && { code }), message } };
    }
    return { result: obj.result };
  }
  return undefined;
}

export const APP_SERVER_TIMEOUT_MS = 20_000;

export async function callAppServer(
  ctx: ProbeContext,
  method: string,
  params?: unknown,
  cwd?: string,
): Promise<{ reply: RpcReply } | { failed: string }> {
  const outcome: ProbeOutcome = await ctx.run({
    args: ['app-server'],
    timeout_ms: APP_SERVER_TIMEOUT_MS,
    stdin: rpcScript(method, params),
    until: (stdout) => findReply(stdout, 2) !== undefined,
    ...(cwd !== undefined && { cwd }),
  });
  if (outcome.kind === 'spawn_failed')
    return { failed: `cannot run app-server: ${outcome.message}` };
  const reply = findReply(outcome.stdout, 2);
  if (reply) return { reply };
  return {
    failed:
      outcome.kind === 'timed_out'
        ? 'app-server timed out'
        : `app-server gave no answer to ${method}`,
  };
}
