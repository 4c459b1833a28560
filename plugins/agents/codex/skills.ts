import type { AgentSkill, ProbeContext } from '../../../kernel/plugin/index.js';
import { isRecord, str } from '../../../kernel/plugin/index.js';
import { callAppServer } from './app-server.js';

/** `skills/list` answers `data[{cwd, skills[{name, description, enabled, …}]}]`; disabled skills are left out. */
export function parseSkills(result: unknown): AgentSkill[] | null {
  if (!isRecord(result) || !Array.isArray(result.data)) return null;
  const out: AgentSkill[] = [];
  for (const entry of result.data) {
    if (!isRecord(entry) || !Array.isArray(entry.skills)) continue;
    for (const s of entry.skills) {
      if (!isRecord(s) || s.enabled === false) continue;
      const name = str(s.name);
      if (!name || out.some((o) => o.name === name)) continue;
      const description = str(s.description);
      out.push({ name, ...(description && { description }) });
    }
  }
  return out;
}

export async function listSkills(
  ctx: ProbeContext & { cwd: string },
): Promise<AgentSkill[] | null> {
  const answer = await callAppServer(ctx, 'skills/list', { cwds: [ctx.cwd] }, ctx.cwd);
  if ('failed' in answer || 'error' in answer.reply) return null;
  return parseSkills(answer.reply.result);
}
