import type { AgentSkill, ProbeContext } from '../../../kernel/plugin/index.js';
import { isRecord, str } from '../../../kernel/plugin/index.js';
import { CONTROL_ARGS, findControlResponse, PROBE_ENV } from './probe.js';

const SKILLS_TIMEOUT_MS = 25_000;
export const INITIALIZE_REQUEST_ID = 'svc-initialize';

const INITIALIZE_LINE = `${JSON.stringify({
  type: 'control_request',
  request_id: INITIALIZE_REQUEST_ID,
  request: { subtype: 'initialize' },
})}\n`;

/** `initialize` answers `commands[]` (skills and slash commands, `/name` at message start). */
export function parseSkills(stdout: string): AgentSkill[] | null {
  const response = findControlResponse(stdout, INITIALIZE_REQUEST_ID);
  if (!isRecord(response) || !Array.isArray(response.commands)) return null;
  const skills: AgentSkill[] = [];
  for (const c of response.commands) {
    if (!isRecord(c)) continue;
    const name = str(c.name);
    if (!name) continue;
    const description = str(c.description);
    skills.push({ name, ...(description ? { description } : {}) });
  }
  return skills;
}

/**
 * Starts claude in the chat's cwd (project skills and commands live there), sends the
 * `initialize` control request and reads its answer. No model call is made.
 */
export async function listSkills(
  ctx: ProbeContext & { cwd: string },
): Promise<AgentSkill[] | null> {
  const out = await ctx.run({
    args: CONTROL_ARGS,
    cwd: ctx.cwd,
    timeout_ms: SKILLS_TIMEOUT_MS,
    stdin: INITIALIZE_LINE,
    until: (stdout) => stdout.includes(INITIALIZE_REQUEST_ID),
    env: PROBE_ENV,
  });
  if (out.kind === 'spawn_failed') return null;
  return parseSkills(out.stdout);
}
