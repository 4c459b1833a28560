/**
 * MCP helpers: listen a test kernel on an ephemeral loopback port and drive `/mcp` (or a per-step
 * endpoint) with the SDK's own `Client` over Streamable HTTP, as an MCP client would.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { onTestFinished } from 'vitest';
import type { TestApp } from './app.js';

/** Starts listening on 127.0.0.1:0 and answers `http://127.0.0.1:<port>`. */
export async function listen(t: TestApp): Promise<string> {
  const address = await t.kernel.app.listen({ host: '127.0.0.1', port: 0 });
  return address.replace('localhost', '127.0.0.1');
}

/** A raw JSON-RPC `initialize` request, for tests that drive an MCP endpoint without the SDK. */
export const INITIALIZE_REQUEST = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '0' },
  },
} as const;

export interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

export async function connect(url: string, token: string): Promise<Connected> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'svc-test', version: '0.0.0' });
  await client.connect(transport);
  onTestFinished(() => client.close().catch(() => {}));
  return { client, transport };
}

export interface ToolAnswer<T = Record<string, unknown>> {
  isError: boolean;
  /** The JSON of the text content: the route's body, or the error envelope. */
  body: T;
  structured: unknown;
}

export async function call<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer<T>> {
  const r = await client.callTool({ name, arguments: args });
  const content = r.content as Array<{ type: string; text?: string }>;
  const text = content.find((c) => c.type === 'text')?.text ?? 'null';
  return {
    isError: r.isError === true,
    body: JSON.parse(text) as T,
    structured: r.structuredContent,
  };
}
