/**
 * Every MCP tool, and every API route that is deliberately not one with the reason (SPEC §4.1,
 * §4.5, §5.6; decision 121). A unit test fails when a route is in neither list, so a new route
 * needs a decision before it ships.
 */
import type { McpTool } from '../tool.js';
import { agentTools } from './agents.js';
import { daemonTools } from './daemon.js';
import { projectTools } from './projects.js';
import { reviewTools } from './review.js';
import { taskTools } from './tasks.js';
import { triggerTools } from './triggers.js';
import { workflowTools } from './workflows.js';

export const builtinTools: readonly McpTool[] = [
  ...projectTools,
  ...taskTools,
  ...reviewTools,
  ...workflowTools,
  ...agentTools,
  ...triggerTools,
  ...daemonTools,
];

/** `METHOD /path` → why it is not a tool. Path patterns as registered (`:id`), prefixes end in `*`. */
export const NOT_TOOLS: Readonly<Record<string, string>> = {
  'GET /v1/health': 'the unauthenticated liveness probe; an MCP session is already proof of life',
  'GET /v1/info': 'daemon facts for humans and the CLI; doctor_report covers what an agent needs',
  'POST /v1/daemon/stop': 'an agent must never stop the daemon that runs it',
  'POST /v1/daemon/backup': 'writes an archive anywhere on disk; an operator action',
  'GET /v1/maintenance/orphans': 'maintenance is an operator action',
  'POST /v1/maintenance/gc': 'removes directories; an operator action',
  'POST /v1/doctor/fix': 'removes worktrees and compacts the database; an operator action',
  'GET /v1/update': 'the release check is for the operator who installs updates',
  'PATCH /v1/config': 'by design (SPEC §4.1): an agent cannot change the daemon’s configuration',
  'GET /v1/events': 'a long-lived SSE stream; tool results are single answers',
  'GET /v1/tasks/:id/events': 'a long-lived SSE stream; tool results are single answers',
  'POST /v1/workflows': 'writes workflow files; agents edit files in their worktree instead',
  'PATCH /v1/workflows': 'writes workflow files; agents edit files in their worktree instead',
  'POST /v1/triggers': 'writes a trigger file; trigger files are the operator’s',
  'PATCH /v1/triggers/:id': 'writes a trigger file; trigger files are the operator’s',
  'DELETE /v1/triggers/:id': 'deletes a trigger file; trigger files are the operator’s',
  'GET /v1/triggers/schema': 'an editor aid for writing trigger files, which is not a tool',
  'POST /v1/triggers/validate': 'an editor aid for writing trigger files, which is not a tool',
  'POST /v1/triggers/:id/poll':
    'runs the trigger’s source (a command, a forge listing) on the host',
  'POST /v1/triggers/:id/events': 'the signed ingress of http triggers, for the sender it trusts',
  'POST /v1/agents/:name/quota':
    'by design (SPEC §5.6): an agent must not forge daemon-level quota facts',
  'POST /v1/chats/*': 'by design (SPEC §4.5): none of the chat family is a tool',
  'GET /v1/chats*': 'by design (SPEC §4.5): none of the chat family is a tool',
  'DELETE /v1/chats/:id': 'by design (SPEC §4.5): none of the chat family is a tool',
  'POST /v1/chats': 'by design (SPEC §4.5): none of the chat family is a tool',
  'POST /v1/tasks/:id/chat': 'by design (SPEC §4.5): opening a chat on a task is chat family',
  'POST /v1/chats/:id/handoff':
    'by design (SPEC §4.5): hand-off creates a task outside the MCP creation bounds',
  'GET /': 'sends a browser to the web board',
  'GET /ui': 'the web board’s page, for a person in a browser',
  'GET /ui/:file': 'the web board’s page, for a person in a browser',
  'POST /v1/ui/codes': 'sign-in codes for the web board are for the person at the terminal',
  'POST /v1/ui/session': 'the web board’s sign-in; an agent has its own endpoint and token',
  'POST /mcp': 'the MCP endpoint itself',
  'GET /mcp': 'the MCP endpoint itself',
  'DELETE /mcp': 'the MCP endpoint itself',
  'POST /mcp/steps/:run': 'the per-step MCP endpoints themselves',
  'GET /mcp/steps/:run': 'the per-step MCP endpoints themselves',
  'DELETE /mcp/steps/:run': 'the per-step MCP endpoints themselves',
};

/** The exclusion that covers a route, if any. */
export function exclusionOf(method: string, url: string): string | undefined {
  const key = `${method} ${url}`;
  const exact = NOT_TOOLS[key];
  if (exact) return exact;
  for (const [pattern, reason] of Object.entries(NOT_TOOLS))
    if (pattern.endsWith('*') && key.startsWith(pattern.slice(0, -1))) return reason;
  return undefined;
}
