/**
 * Streamable HTTP sessions (MCP transport, SDK `StreamableHTTPServerTransport`): an `initialize`
 * POST opens one (a fresh server and transport, its id in `Mcp-Session-Id`), later requests carry
 * the id, `DELETE` ends it. A session belongs to the caller that opened it: the same id presented
 * on another endpoint is unknown there. Sessions idle for an hour are closed, and at most
 * `MAX_SESSIONS` live at once (the least recently used goes), so a client that never says goodbye
 * costs nothing for long (decision 120).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Clock } from '../clock/index.js';
import { loadMcpSdk, type McpSdk } from './sdk.js';

export const MAX_SESSIONS = 64;
export const SESSION_IDLE_MS = 60 * 60 * 1000;

interface Session {
  /** Which endpoint and caller the session speaks for (`client`, `step:<run>`). */
  owner: string;
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastSeenMs: number;
}

/** A JSON-RPC error answered by the transport layer itself (no session to hand it to). */
function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function opensSession(sdk: McpSdk, body: unknown): boolean {
  return Array.isArray(body)
    ? body.some((m) => sdk.isInitializeRequest(m))
    : sdk.isInitializeRequest(body);
}

export class SessionBook {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly clock: Clock,
    /** False when an owner can no longer be served (its step ended): its sessions close. */
    private readonly ownerAlive: (owner: string) => boolean,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    owner: string,
    serverFor: () => Server,
  ): Promise<void> {
    const sdk = await loadMcpSdk();
    const header = req.headers['mcp-session-id'];
    const id = Array.isArray(header) ? header[0] : header;
    if (id !== undefined) {
      const session = this.sessions.get(id);
      if (!session || session.owner !== owner) {
        rpcError(res, 404, -32001, 'Session not found');
        return;
      }
      session.lastSeenMs = this.clock.now();
      await session.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== 'POST' || !opensSession(sdk, body)) {
      rpcError(res, 400, -32000, 'Bad Request: No valid session ID provided');
      return;
    }
    await this.sweep();
    const server = serverFor();
    const transport: StreamableHTTPServerTransport = new sdk.StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        this.sessions.set(sid, { owner, transport, server, lastSeenMs: this.clock.now() });
      },
      onsessionclosed: (sid) => {
        this.sessions.delete(sid);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize the transport refused opened nothing; drop the pair.
    if (transport.sessionId === undefined || !this.sessions.has(transport.sessionId))
      await server.close();
  }

  /** Closes idle sessions, sessions of owners gone, and the oldest past the cap. */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    const doomed: string[] = [];
    for (const [id, s] of this.sessions)
      if (now - s.lastSeenMs > SESSION_IDLE_MS || !this.ownerAlive(s.owner)) doomed.push(id);
    const rest = [...this.sessions]
      .filter(([id]) => !doomed.includes(id))
      .sort((a, b) => a[1].lastSeenMs - b[1].lastSeenMs);
    while (rest.length >= MAX_SESSIONS) doomed.push((rest.shift() as [string, Session])[0]);
    await Promise.all(doomed.map((id) => this.close(id)));
  }

  private async close(id: string): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    await s.server.close().catch(() => {});
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }
}
