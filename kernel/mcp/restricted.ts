/**
 * What a restricted agent may do through its step endpoint (decision 125): an agent step of a
 * restricted task, or one whose own `permission_mode` is restricted. A restricted agent asks a human before it runs anything but file tools and git (SPEC §4.4 rule 5, decision
 * 113), so the tools must not hand it what the human would have been asked: it reads everything,
 * creates tasks (restricted, bounded: engine/create.ts) and acts on restricted tasks, but it
 * cannot act on a task that is not restricted, write projects, pass shell text (`run`,
 * `run_override`) or grant a permission request (`allow: true`). Refusals are 400
 * `validation_failed` with `details.reason: "restricted_caller"` and the argument to blame.
 */
import { SvcError } from '../errors.js';
import type { ToolContext, ToolIds } from './tool-context.js';

/** The arguments that carry shell text a restricted agent could not run itself. */
const SHELL_TEXT = ['run', 'run_override'] as const;

function refuse(message: string, field?: string): never {
  throw new SvcError(
    'validation_failed',
    `${message}: the calling agent runs restricted (decision 125)`,
    field === undefined ? { reason: 'restricted_caller' } : { field, reason: 'restricted_caller' },
  );
}

/** Throws when a restricted step caller's call would loosen its restriction; else nothing. */
export function checkRestrictedCaller(
  ctx: ToolContext,
  tool: { name: string; readOnly: boolean },
  input: unknown,
  ids: ToolIds,
): void {
  if (ctx.caller.kind !== 'step' || !ctx.caller.restricted || tool.readOnly) return;
  // Creation stays open: the new task is restricted (tasks_create) and held to the MCP bounds.
  if (tool.name === 'tasks_create') return;
  if (tool.name.startsWith('projects_'))
    refuse(`${tool.name} is not open to a restricted task's agent`);
  const target = typeof ids.task_id === 'number' ? ctx.s.engine.tasks.get(ids.task_id) : undefined;
  if (target && target.restricted !== 1)
    refuse(`${tool.name} may act only on restricted tasks; task ${target.id} is not`, 'task_id');
  const args = (typeof input === 'object' && input !== null ? input : {}) as Record<
    string,
    unknown
  >;
  for (const key of SHELL_TEXT)
    if (typeof args[key] === 'string') refuse(`${key} carries a shell command`, key);
  if (tool.name === 'tasks_answer' && args.allow === true)
    refuse('granting a permission request is a human’s answer', 'allow');
}
