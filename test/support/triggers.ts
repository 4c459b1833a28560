/**
 * Helpers for trigger tests: an app with `triggers.enabled` on (or off) and a project whose
 * workflows are one-step commands, trigger files written straight into the directory (then
 * reloaded, so tests need not wait for the watcher), a command source that prints whatever the
 * test put in a file, and readers for the ledger and poll health.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeClock } from '../../kernel/clock/index.js';
import { parseDuration } from '../../kernel/config/index.js';
import { buildTestApp, type TestApp } from './app.js';
import type { Repo } from './git.js';
import { addProject, commandWorkflow } from './tasks.js';
import { tempDir } from './tmp.js';

export interface TriggerWorld {
  t: TestApp;
  clock: FakeClock;
  project: { id: number; name: string; path: string };
  repo: Repo;
  /** The file a `command` source prints (see `eventsCommand`). */
  eventsFile: string;
  /** Replaces what the command prints next. */
  setEvents(lines: Array<Record<string, unknown> | string>): void;
  /** Writes `{triggersDir}/{id}.yaml` and reloads the runtime at once. */
  put(id: string, yaml: string): Promise<void>;
  /** Waits until no poll, delivery or queue release is running. */
  idle(): Promise<void>;
  deliveries(id: string): Promise<Delivery[]>;
  row(id: string): Promise<Record<string, unknown> & { poll: Record<string, unknown> }>;
}

export interface Delivery {
  id: number;
  trigger_id: string;
  event_id: string;
  dedupe_key: string | null;
  concurrency_key: string | null;
  outcome: string;
  task_id: number | null;
  superseded_task_id: number | null;
  created_at: string;
  detail: unknown;
}

export const WORKFLOWS = {
  ok: commandWorkflow('ok', 'true'),
  slow: commandWorkflow('slow', 'sleep 30'),
  fail: commandWorkflow('fail', 'exit 3'),
};

export async function triggerWorld(
  opts: { enabled?: boolean; config?: string; workflows?: Record<string, string> } = {},
): Promise<TriggerWorld> {
  const config = `triggers:\n  enabled: ${opts.enabled !== false}\n${opts.config ?? ''}`;
  const t = await buildTestApp({ config });
  const { project, repo } = await addProject(t, opts.workflows ?? WORKFLOWS);
  const eventsFile = join(tempDir('svc-events-'), 'events.jsonl');
  writeFileSync(eventsFile, '');
  const triggers = t.kernel.services.triggers;
  const world: TriggerWorld = {
    t,
    clock: t.clock as FakeClock,
    project,
    repo,
    eventsFile,
    setEvents: (lines) =>
      writeFileSync(
        eventsFile,
        lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') +
          (lines.length ? '\n' : ''),
      ),
    put: async (id, yaml) => {
      writeFileSync(join(t.paths.triggersDir, `${id}.yaml`), yaml, { mode: 0o600 });
      triggers.reload('file');
      await triggers.idle();
    },
    idle: () => triggers.idle(),
    deliveries: async (id) =>
      (await t.json<{ deliveries: Delivery[] }>('GET', `/v1/triggers/${id}/deliveries`)).deliveries,
    row: (id) => t.json('GET', `/v1/triggers/${id}`),
  };
  return world;
}

/** A `command` source block printing the world's events file. */
export function eventsCommand(w: TriggerWorld, extra = ''): string {
  return `source:\n  type: command\n  command: [cat, ${JSON.stringify(w.eventsFile)}]\n  poll_interval: 1m\n${extra}`;
}

/** A whole trigger file: a command source over the events file and the given action. */
export function commandTrigger(
  w: TriggerWorld,
  id: string,
  action: string,
  top = '',
  sourceExtra = '',
): string {
  return `id: ${id}\nenabled: true\nproject_id: ${w.project.id}\n${top}${eventsCommand(w, sourceExtra)}action:\n${action}`;
}

export const CREATE_OK = '  type: create_task\n  title: "Event {{.Event.id}}"\n  workflow: ok\n';

/**
 * Advances the fake clock a minute at a time, waiting for the polls each minute sets off, so a
 * running command never sees its timeout (which is on the same clock) fire under a long jump.
 */
export async function tick(w: TriggerWorld, by: string): Promise<void> {
  let left = parseDuration(by);
  while (left > 0) {
    const step = Math.min(left, 60_000);
    await w.clock.advance(step);
    await w.idle();
    left -= step;
  }
}
