/**
 * `svc mcp stdio` (decision 212): the daemon's MCP tools for a client that starts its servers as
 * commands — `claude mcp add svc -- svc mcp stdio` — so its configuration holds neither the port,
 * which changes at every start with `listen: 127.0.0.1:0`, nor the token.
 */
import { Client } from '../client.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { loadRelaySdk, McpRelay } from '../mcp-relay.js';

export const mcpStdio: Command = {
  name: 'mcp stdio',
  summary:
    'An MCP server on stdin/stdout relaying to the running daemon’s /mcp (for `claude mcp add svc -- svc mcp stdio`)',
  usage: 'svc mcp stdio',
  async run(ctx) {
    const sdk = await loadRelaySdk();
    // Found afresh on every (re)connection: a restarted daemon may listen on another port.
    const discover = () => {
      const client = Client.discover(ctx.paths);
      return { url: client.url('/mcp'), token: client.token };
    };
    // stdout carries the protocol: everything said to a person goes to stderr.
    const relay = new McpRelay(sdk, discover, (line) => ctx.err(`svc mcp: ${line}`));
    await relay.run();
    return EXIT.ok;
  },
};

export const mcpCommands: Command[] = [mcpStdio];
