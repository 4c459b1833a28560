/**
 * `/mcp` and `/mcp/steps/<run>` on the daemon's one listener (SPEC §4.7). The front door has
 * already checked the Host and the credential (the daemon token on `/mcp`, the step's own token
 * on its path); the body was read by the API's parser, so the one-document, size and content-type
 * rules hold here too, and the parsed body is handed to the SDK transport, which writes the
 * response itself (JSON or SSE). POST carries JSON-RPC, GET opens the session's SSE stream,
 * DELETE ends the session.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SvcError } from '../errors.js';
import { LARGE_BODY_LIMIT } from '../http/index.js';
import type { McpService } from './service.js';
import { runIdOf } from './step-endpoint.js';
import type { ToolCaller } from './tool.js';

export function mcpRoutes(app: FastifyInstance, mcp: McpService): void {
  const serve = (caller: (req: FastifyRequest) => ToolCaller) => {
    return async (req: FastifyRequest, reply: FastifyReply) => {
      const who = caller(req);
      reply.hijack();
      await mcp.handle(req.raw, reply.raw, req.body, who);
    };
  };
  const client = serve(() => ({ kind: 'client' }));
  // The front door let this request through only with a live run's token; the run may have ended
  // since, which is the front door's answer again.
  const step = serve((req) => {
    const runId = runIdOf(req.url.split('?')[0] ?? '');
    const run = runId === null ? null : mcp.liveRun(runId);
    if (runId === null || run === null)
      throw new SvcError('unauthorized', 'the MCP endpoint of this step is closed');
    return {
      kind: 'step',
      task_id: run.task_id,
      run_id: runId,
      restricted: mcp.runRestricted(runId, run.task_id),
    };
  });
  const large = { bodyLimit: LARGE_BODY_LIMIT };
  app.post('/mcp', large, client);
  app.get('/mcp', client);
  app.delete('/mcp', client);
  app.post('/mcp/steps/:run', large, step);
  app.get('/mcp/steps/:run', step);
  app.delete('/mcp/steps/:run', step);
}
