/**
 * Every durable event kind, one closed list so a typo is a type error (STYLE "Hook names are a
 * closed list"). Kinds are `<noun>.<past_participle>`. Payload fields per kind are documented in
 * docs/events.md; SPEC §6 names the first five.
 */
export const EVENT_KINDS = [
  'task.created',
  'task.state_changed',
  'task.step_advanced',
  'task.priority_changed',
  'task.children_changed',
  'task.forge_updated',
  'step.started',
  'step.finished',
  'chat.created',
  'chat.state_changed',
  'chat.turn_started',
  'chat.turn_finished',
  'chat.handed_off',
  'chat.closed',
  'chat.archived',
  'chat.deleted',
  'agent.quota_changed',
  'project.created',
  'project.updated',
  'project.deleted',
  'workflow.registry_changed',
  'trigger.fired',
  'trigger.refused',
  'trigger.changed',
  'config.changed',
  'daemon.started',
  'daemon.shutting_down',
  'backup.created',
  'backup.failed',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

export function isEventKind(s: string): s is EventKind {
  return (EVENT_KINDS as readonly string[]).includes(s);
}
