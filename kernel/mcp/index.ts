/**
 * mcp: the daemon as a Model Context Protocol server (SPEC §4.7, §2.10 `mcp.*`, §5.5–5.6) over the
 * SDK's Streamable HTTP transport, on the API's listener and front door. Tools mirror the API
 * routes (tools/, each parsing the route's own zod schema and calling the route's service code);
 * the chat family, `PATCH /v1/config`, the quota push and hand-off are deliberately absent.
 * Agent steps reach it on per-step endpoints (`endpointFor`), which identify the calling task so
 * tasks it creates are held to `mcp.max_depth` and `mcp.max_tasks` (the engine checks them).
 * Lives in the kernel, not plugins/, because every tool is a call into kernel services
 * (decision 120). Uses: engine, projects, workflows, config, doctor, daemon, clock.
 * Used by: kernel.ts (routes, front door), steps (through StepContext.mcp).
 * Decisions: 120–125.
 */
export { mcpRoutes } from './route.js';
export { SERVER_NAME, toolError, toolResult } from './server.js';
export { McpService } from './service.js';
export {
  HOST_ALIASES,
  runIdOf,
  STEP_PATH_PREFIX,
  type StepMcpEndpoint,
  stepToken,
} from './step-endpoint.js';
export { defineTool, type McpTool, type ToolCaller, type ToolContext } from './tool.js';
export { MASKED } from './tools/daemon.js';
export { builtinTools, exclusionOf, NOT_TOOLS } from './tools/index.js';
export { TRANSCRIPT_DEFAULT_TAIL } from './tools/tasks.js';
