/**
 * One MCP server per session, speaking for one caller (decision 120). Built on the SDK's low-level
 * `Server` rather than `McpServer`: `McpServer` validates arguments itself and answers a refusal
 * as prose, while every tool here must refuse with the API's envelope `{error:{code,message,
 * details?}}` from the same `parseWith` the route uses. A tool's answer is the route's body as
 * JSON text, and as `structuredContent` when it is an object; a refusal is `isError: true` with
 * the envelope in both places.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { envelopeOf, isSvcError, SvcError } from '../errors.js';
import { isRecord } from '../plugin/index.js';
import { mcpSdk } from './sdk.js';
import { type McpTool, type ToolContext, ToolText } from './tool.js';

export const SERVER_NAME = 'svc';

const INSTRUCTIONS =
  'svc supervises coding agents: projects are git repositories; tasks run workflows of steps in their own worktrees. ' +
  'Tools mirror the svc HTTP API one to one and answer its JSON bodies; a refusal is the API error envelope {error:{code,message,details}}.';

export function toolResult(body: unknown): CallToolResult {
  if (body instanceof ToolText)
    return {
      content: [
        { type: 'text', text: body.text },
        { type: 'text', text: JSON.stringify(body.facts) },
      ],
    };
  return {
    content: [{ type: 'text', text: JSON.stringify(body ?? null) }],
    ...(isRecord(body) ? { structuredContent: body } : {}),
  };
}

export function toolError(err: SvcError): CallToolResult {
  const envelope = envelopeOf(err);
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(envelope) }],
    structuredContent: { ...envelope },
  };
}

export interface ServerDeps {
  version: string;
  tools: readonly McpTool[];
  logger: Logger;
  context: ToolContext;
}

/** Call once `loadMcpSdk()` has resolved (the session book awaits it first). */
export function buildServer(d: ServerDeps): Server {
  const { Server, ListToolsRequestSchema, CallToolRequestSchema } = mcpSdk();
  const server = new Server(
    { name: SERVER_NAME, version: d.version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const byName = new Map(d.tools.map((t) => [t.name, t]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: d.tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: { readOnlyHint: t.readOnly, openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
    const tool = byName.get(req.params.name);
    if (!tool) return toolError(new SvcError('not_found', `no tool named ${req.params.name}`));
    try {
      const context = { ...d.context, signal: extra.signal };
      return toolResult(await tool.call(context, req.params.arguments ?? {}));
    } catch (err) {
      if (isSvcError(err)) return toolError(err);
      d.logger.error({ err, tool: tool.name }, 'mcp tool failed');
      return toolError(new SvcError('internal', 'internal error'));
    }
  });
  return server;
}
