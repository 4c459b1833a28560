/**
 * `svc mcp stdio` (decision 212): an MCP server on stdin/stdout that relays every message to the
 * running daemon's `/mcp`, so an MCP client is configured with a command instead of a URL and a
 * token. The daemon is found the way every CLI command finds it (daemon.json and the token file)
 * when the relay first connects, and again whenever the daemon stops answering for the session:
 * a restart on another port, a session the daemon no longer knows. The relay then opens a new
 * session, replays the client's `initialize` (answering nothing to the client for it) and sends
 * the message again, so the client never sees the restart. The token never leaves the data dir.
 *
 * The SDK is imported when the command runs (decision 155): no other command pays for it.
 */
import type { Readable, Writable } from 'node:stream';
import type {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface RelaySdk {
  StdioServerTransport: typeof StdioServerTransport;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  StreamableHTTPError: typeof StreamableHTTPError;
}

export async function loadRelaySdk(): Promise<RelaySdk> {
  const [stdio, http] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  return {
    StdioServerTransport: stdio.StdioServerTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    StreamableHTTPError: http.StreamableHTTPError,
  };
}

/** Where the daemon's MCP endpoint is now, and its token; throws when no daemon runs. */
export type Discover = () => { url: string; token: string };

interface Upstream {
  transport: StreamableHTTPClientTransport;
  generation: number;
}

type Json = Record<string, unknown>;

const asJson = (m: JSONRPCMessage) => m as unknown as Json;
const isRequest = (m: JSONRPCMessage) => 'method' in m && 'id' in m && asJson(m).id !== undefined;
const isResponse = (m: JSONRPCMessage) => !('method' in m) && 'id' in m;

/** A JSON-RPC error code in the implementation-defined server range: the daemon is not there. */
const DAEMON_UNAVAILABLE = -32000;
const REPLAY_TIMEOUT_MS = 30_000;

export class McpRelay {
  private upstream: Upstream | null = null;
  private connecting: Promise<Upstream> | null = null;
  private generation = 0;
  /** The endpoint last discovered, for messages. */
  private lastUrl = '';
  /** The client's `initialize` and `notifications/initialized`, replayed on a new session. */
  private initialize: Json | null = null;
  private initialized: JSONRPCMessage | null = null;
  private clientInitId: unknown = null;
  /** Answers to the relay's own requests (a replayed initialize), by id. */
  private readonly own = new Map<string, (m: JSONRPCMessage) => void>();
  private readonly stdio: StdioServerTransport;
  /** Messages from the client are relayed in order, one at a time. */
  private queue: Promise<void> = Promise.resolve();
  /**
   * The client has gone and the session is being ended: the daemon then closes the session's
   * event stream, which the SDK reports as an error ("Maximum reconnection attempts (0)
   * exceeded") that is no failure and must not read like one in the client's server log.
   */
  private closing = false;

  constructor(
    private readonly sdk: RelaySdk,
    private readonly discover: Discover,
    private readonly log: (line: string) => void,
    private readonly stdin: Readable = process.stdin,
    stdout: Writable = process.stdout,
  ) {
    this.stdio = new sdk.StdioServerTransport(stdin, stdout);
  }

  /** Relays until the client closes stdin, then ends the daemon session. */
  async run(): Promise<void> {
    const stdin = this.stdin;
    const ended = new Promise<void>((resolve) => {
      stdin.once('end', resolve);
      stdin.once('close', resolve);
    });
    this.stdio.onmessage = (m) => {
      this.queue = this.queue
        .then(() => this.fromClient(m))
        .catch((err: unknown) => {
          this.log(`relay failed: ${(err as Error).message}`);
        });
    };
    this.stdio.onerror = (err) => this.log(`stdin: ${err.message}`);
    await this.stdio.start();
    await ended;
    await this.queue;
    this.closing = true;
    const up = this.upstream;
    this.upstream = null;
    if (up) {
      await up.transport.terminateSession().catch(() => {});
      await up.transport.close().catch(() => {});
    }
    await this.stdio.close();
  }

  private async fromClient(m: JSONRPCMessage): Promise<void> {
    const json = asJson(m);
    if (json.method === 'initialize' && isRequest(m)) {
      // A client (re)initializing starts a session of its own.
      await this.drop(this.upstream);
      this.initialize = null;
      this.initialized = null;
      this.clientInitId = json.id;
      if (await this.forward(m, false)) this.initialize = json;
      return;
    }
    if (json.method === 'notifications/initialized') this.initialized = m;
    await this.forward(m, true);
  }

  /** Sends a client message to the daemon; true when it was delivered. */
  private async forward(m: JSONRPCMessage, mayReconnect: boolean): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      let up: Upstream;
      try {
        up = await this.connect();
      } catch (err) {
        await this.refuse(m, err);
        return false;
      }
      try {
        await up.transport.send(m);
        return true;
      } catch (err) {
        await this.drop(up);
        if (mayReconnect && attempt === 0 && this.recoverable(err)) {
          this.log(`the daemon session ended (${(err as Error).message}); reconnecting`);
          continue;
        }
        await this.refuse(m, err);
        return false;
      }
    }
  }

  /**
   * A failure another connection may not meet: the daemon went away or moved (connection refused,
   * a new port in daemon.json), or no longer knows the session (404 after a restart), or answers
   * another token (401).
   */
  private recoverable(err: unknown): boolean {
    if (err instanceof this.sdk.StreamableHTTPError) return err.code === 404 || err.code === 401;
    return err instanceof TypeError;
  }

  /** A request the relay could not deliver is answered with a JSON-RPC error saying why. */
  private async refuse(m: JSONRPCMessage, err: unknown): Promise<void> {
    // fetch says only "fetch failed" when nothing listens: say where and what to do.
    const reason =
      err instanceof TypeError
        ? `the daemon at ${this.lastUrl} does not answer (${(err as Error & { cause?: Error }).cause?.message ?? err.message}); is it running? svc daemon start`
        : ((err as Error)?.message ?? String(err));
    this.log(`cannot reach the daemon: ${reason}`);
    if (!isRequest(m)) return;
    await this.stdio.send({
      jsonrpc: '2.0',
      id: asJson(m).id as string | number,
      error: { code: DAEMON_UNAVAILABLE, message: `svc: ${reason}` },
    });
  }

  private async connect(): Promise<Upstream> {
    if (this.upstream) return this.upstream;
    this.connecting ??= this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async open(): Promise<Upstream> {
    const { url, token } = this.discover();
    this.lastUrl = url;
    const generation = ++this.generation;
    const transport = new this.sdk.StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      // The relay reconnects itself, through discovery: the SDK's retries would reuse the old URL.
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 1000,
        maxReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 1,
      },
    });
    transport.onmessage = (m) => this.fromDaemon(m, transport);
    transport.onerror = (err) => {
      if (!this.closing) this.log(`daemon stream: ${err.message}`);
    };
    await transport.start();
    const up = { transport, generation };
    if (this.initialize) {
      try {
        await this.replay(up);
      } catch (err) {
        await transport.close().catch(() => {});
        throw err;
      }
    }
    this.upstream = up;
    this.log(`connected to ${url}`);
    return up;
  }

  /** A new session for a client that already initialized: its initialize again, answered here. */
  private async replay(up: Upstream): Promise<void> {
    const id = `svc-relay-${up.generation}`;
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<JSONRPCMessage>((resolve, reject) => {
      this.own.set(id, resolve);
      timer = setTimeout(
        () => reject(new Error('the daemon did not answer initialize')),
        REPLAY_TIMEOUT_MS,
      );
    });
    try {
      await up.transport.send({ ...this.initialize, id } as unknown as JSONRPCMessage);
      const res = asJson(await answered);
      if (res.error) throw new Error(`initialize refused: ${JSON.stringify(res.error)}`);
      this.adoptVersion(up.transport, res);
      if (this.initialized) await up.transport.send(this.initialized);
    } finally {
      clearTimeout(timer);
      this.own.delete(id);
    }
  }

  private adoptVersion(transport: StreamableHTTPClientTransport, res: Json): void {
    const version = (res.result as Json | undefined)?.protocolVersion;
    if (typeof version === 'string') transport.setProtocolVersion(version);
  }

  private fromDaemon(m: JSONRPCMessage, transport: StreamableHTTPClientTransport): void {
    const json = asJson(m);
    if (isResponse(m)) {
      const mine = typeof json.id === 'string' ? this.own.get(json.id) : undefined;
      if (mine) {
        mine(m);
        return;
      }
      if (json.id === this.clientInitId) this.adoptVersion(transport, json);
    }
    this.stdio.send(m).catch((err: unknown) => this.log(`stdout: ${(err as Error).message}`));
  }

  private async drop(up: Upstream | null): Promise<void> {
    if (!up) return;
    if (this.upstream === up) this.upstream = null;
    await up.transport.close().catch(() => {});
  }
}
