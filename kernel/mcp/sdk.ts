/**
 * The MCP SDK, loaded on the first `/mcp` request instead of at start-up: importing it (with its
 * schemas and ajv) cost about 200 ms of CPU on every cold start, more than fastify and zod
 * together, for an endpoint many daemons never serve (issue 11, docs/performance.md). Type
 * imports stay static: they are erased.
 */
import type * as ServerModule from '@modelcontextprotocol/sdk/server/index.js';
import type * as TransportModule from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';

export interface McpSdk {
  Server: typeof ServerModule.Server;
  StreamableHTTPServerTransport: typeof TransportModule.StreamableHTTPServerTransport;
  isInitializeRequest: typeof TypesModule.isInitializeRequest;
  ListToolsRequestSchema: typeof TypesModule.ListToolsRequestSchema;
  CallToolRequestSchema: typeof TypesModule.CallToolRequestSchema;
}

let loading: Promise<McpSdk> | null = null;
let loaded: McpSdk | null = null;

/** Imports the SDK once; every later call answers the same modules. */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([server, transport, types]) => {
    loaded = {
      Server: server.Server,
      StreamableHTTPServerTransport: transport.StreamableHTTPServerTransport,
      isInitializeRequest: types.isInitializeRequest,
      ListToolsRequestSchema: types.ListToolsRequestSchema,
      CallToolRequestSchema: types.CallToolRequestSchema,
    };
    return loaded;
  });
  return loading;
}

/** The SDK after `loadMcpSdk()` resolved; throws when called before (a programming error). */
export function mcpSdk(): McpSdk {
  if (!loaded) throw new Error('the MCP SDK is used before loadMcpSdk() resolved');
  return loaded;
}
