/**
 * The judgement of one event (SPEC §2.6 "Dry-run judgement"): match, allowed_actors, if, the
 * dedupe lookup, seeding, the rate limit, the action templates and the overrun check, in that
 * order, reading the ledger and the tasks but writing nothing. The live runtime and both dry
 * runs call this same function; only the runtime then acts on the verdict (decision 082). What
 * "in flight", the overrun modes and the hourly limit mean is decision 089.
 */
import { renderTemplate, taintTree } from '../../lib/template/index.js';
import {
  DEFAULT_DEDUPE_KEY,
  onFireOf,
  overrunOf,
  permissionOf,
  type TriggerDefinition,
} from './definition.js';

export interface PlannedAction {
  type: TriggerDefinition['action']['type'];
  method: 'POST';
  path: string;
  body: Record<string, unknown> | null;
  /** Reactions: the task acted on and its branch. */
  task_id?: number;
  branch?: string;
}

export interface Judgement {
  event_id: string;
  matched: boolean;
  match_miss?: string;
  if?: boolean;
  if_rendered?: string;
  dedupe_key?: string;
  would_dedupe?: boolean;
  overrun?: string;
  concurrency_key?: string;
  in_flight?: number[];
  would_skip?: boolean;
  would_cancel?: boolean;
  would_queue?: boolean;
  action?: PlannedAction;
  /** fired (would be replayed), seeded, deduped, filtered, rate_limited, skipped, queued, refused, error. */
  outcome: string;
  error?: string;
  /** A refusal made before any route was asked (a reaction whose branch names no task). */
  envelope?: { error: { code: string; message: string } };
}

export interface TaskRef {
  id: number;
  branch_name: string | null;
  state: string;
}

export interface JudgeContext {
  triggerId: string;
  project: { id: number; name: string; path: string; default_branch: string };
  /** Milliseconds since the epoch. */
  now: number;
  /** The first poll after arming: events that pass become `seeded`, nothing fires. */
  seeding: boolean;
  /** A fired or seeded ledger row, or a queued event, holds this key. */
  holdsKey(dedupeKey: string): boolean;
  /** Fired rows in the last hour. */
  firedLastHour(): number;
  /** Unsettled tasks fired under this concurrency key, oldest first. */
  inFlight(concurrencyKey: string): number[];
  task(id: number): TaskRef | undefined;
  /** The live task of the project working on `branch` (a branch is claimed by one live task at most). */
  taskOnBranch(branch: string): TaskRef | undefined;
}

type Data = Record<string, unknown>;

function render(source: string, data: Data, name: string): string {
  return renderTemplate(source, data, { name, missingKey: 'zero' });
}

/** The value at a dotted path of the event (`labels`, `pull.head`). */
export function eventValue(event: Data, path: string): unknown {
  let cur: unknown = event;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Data)[part];
  }
  return cur;
}

function scalar(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/** The first `match:` key the event fails, or null. A list value matches when any item does. */
export function matchMiss(def: TriggerDefinition, event: Data): string | null {
  for (const [key, wanted] of Object.entries(def.match ?? {})) {
    const want = (Array.isArray(wanted) ? wanted : [wanted]).map(String);
    const actual = eventValue(event, key);
    const values = Array.isArray(actual) ? actual.map(scalar) : [scalar(actual)];
    if (!values.some((v) => v !== null && want.includes(v))) return key;
  }
  return null;
}

export function actorAllowed(def: TriggerDefinition, event: Data): boolean {
  if (!def.allowed_actors) return true;
  const actor = scalar(event.actor);
  if (actor === null) return false;
  const lower = actor.toLowerCase();
  return def.allowed_actors.some((a) => a.toLowerCase() === lower);
}

/**
 * Every string and every key in `v`, at any depth, printed through `printer` (numbers and
 * booleans print as they are; decision 185).
 */
function taintAll(v: unknown, printer: (s: string) => string): unknown {
  return taintTree(v, { printer });
}

/**
 * A `run` or `run_override` reaches a shell: an event string printed there is refused, because
 * the follow-up's command has no environment of ours to carry it (decision 088).
 */
const refuseInShell = (): string => {
  throw new Error(
    'an event value cannot be printed into a command line; pass it through a task field of a create_task action instead',
  );
};

/**
 * A follow-up prompt is rendered again as a step template by the engine: an event string is
 * printed as a Go string literal action, so `{{` inside it stays text the second time.
 */
const literalForTemplate = (s: string): string => `{{${JSON.stringify(s)}}}`;

function templateData(def: TriggerDefinition, event: Data, ctx: JudgeContext): Data {
  return {
    Event: event,
    Trigger: { ID: def.id },
    Project: {
      ID: ctx.project.id,
      Name: ctx.project.name,
      DefaultBranch: ctx.project.default_branch,
    },
  };
}

function withEvent(data: Data, event: unknown): Data {
  return { ...data, Event: event };
}

const numberOrText = (s: string): number | string =>
  /^[1-9]\d{0,15}$/.test(s.trim()) ? Number(s.trim()) : s;

function planCreate(def: TriggerDefinition, data: Data, ctx: JudgeContext): PlannedAction {
  const a = def.action;
  if (a.type !== 'create_task') throw new Error('not a create_task action');
  const body: Record<string, unknown> = { project_id: ctx.project.id };
  body.title = render(a.title, data, 'title');
  if (a.description !== undefined) body.description = render(a.description, data, 'description');
  if (a.workflow !== undefined) body.workflow = a.workflow;
  if (a.fields !== undefined) {
    const fields: Record<string, string> = {};
    for (const [k, t] of Object.entries(a.fields)) fields[k] = render(t, data, `fields.${k}`);
    body.fields = fields;
  }
  if (a.prompt !== undefined) body.prompt = render(a.prompt, data, 'prompt');
  if (a.branch_name !== undefined) body.branch_name = render(a.branch_name, data, 'branch_name');
  if (a.base_branch !== undefined) body.base_branch = a.base_branch;
  for (const k of ['agent', 'model', 'effort', 'priority', 'max_task_cost_usd'] as const)
    if (a[k] !== undefined) body[k] = a[k];
  if (a.forge_issue !== undefined)
    body.forge_issue = numberOrText(render(a.forge_issue, data, 'forge_issue'));
  if (a.forge_pull !== undefined)
    body.forge_pull = numberOrText(render(a.forge_pull, data, 'forge_pull'));
  if (onFireOf(def) !== 'create') body.paused = true;
  if (permissionOf(def) !== 'workflow') body.restricted = true;
  return { type: 'create_task', method: 'POST', path: '/v1/tasks', body };
}

type Target =
  | { ok: true; task: TaskRef | undefined; ref: string }
  | { ok: false; judgement: Partial<Judgement> };

function resolveTarget(def: TriggerDefinition, data: Data, ctx: JudgeContext): Target {
  const a = def.action;
  if (a.type === 'create_task') throw new Error('not a reaction');
  if (a.task !== undefined) {
    const ref = render(a.task, data, 'task').trim();
    const id = /^[1-9]\d{0,15}$/.test(ref) ? Number(ref) : null;
    return { ok: true, task: id === null ? undefined : ctx.task(id), ref };
  }
  const branch = render(a.branch ?? '', data, 'branch').trim();
  const task = branch === '' ? undefined : ctx.taskOnBranch(branch);
  if (!task) {
    const message = `no live task of project ${ctx.project.id} works on branch ${JSON.stringify(branch)}`;
    return {
      ok: false,
      judgement: {
        outcome: 'refused',
        error: message,
        envelope: { error: { code: 'not_found', message } },
      },
    };
  }
  return { ok: true, task, ref: String(task.id) };
}

function planReaction(
  def: TriggerDefinition,
  data: Data,
  target: { task: TaskRef | undefined; ref: string },
): PlannedAction {
  const a = def.action;
  const base = `/v1/tasks/${encodeURIComponent(target.ref)}`;
  const ids = target.task
    ? {
        task_id: target.task.id,
        ...(target.task.branch_name ? { branch: target.task.branch_name } : {}),
      }
    : {};
  const shell = withEvent(data, taintAll(data.Event, refuseInShell));
  const prompt = withEvent(data, taintAll(data.Event, literalForTemplate));
  if (a.type === 'follow_up') {
    const body: Record<string, unknown> = {};
    if (a.prompt !== undefined) body.prompt = render(a.prompt, prompt, 'prompt');
    if (a.run !== undefined) body.run = render(a.run, shell, 'run');
    if (a.workflow !== undefined) body.workflow = a.workflow;
    for (const k of ['agent', 'model', 'effort'] as const) if (a[k] !== undefined) body[k] = a[k];
    return { type: a.type, method: 'POST', path: `${base}/follow_up`, body, ...ids };
  }
  if (a.type === 'retry') {
    const body: Record<string, unknown> = {};
    if (a.prompt_override !== undefined)
      body.prompt_override = render(a.prompt_override, prompt, 'prompt_override');
    if (a.run_override !== undefined)
      body.run_override = render(a.run_override, shell, 'run_override');
    return { type: a.type, method: 'POST', path: `${base}/retry`, body, ...ids };
  }
  return { type: 'cancel', method: 'POST', path: `${base}/cancel`, body: null, ...ids };
}

export function judge(
  def: TriggerDefinition,
  event: Data & { id: string },
  ctx: JudgeContext,
): Judgement {
  const j: Judgement = { event_id: event.id, matched: false, outcome: 'filtered' };
  const data = templateData(def, event, ctx);
  const fail = (err: unknown): Judgement => {
    j.outcome = 'error';
    j.error = (err as Error).message;
    return j;
  };

  const miss = matchMiss(def, event);
  if (miss !== null) {
    j.match_miss = miss;
    return j;
  }
  if (!actorAllowed(def, event)) {
    j.match_miss = 'allowed_actors';
    return j;
  }
  j.matched = true;
  if (def.if !== undefined) {
    let out: string;
    try {
      out = render(def.if, data, 'if');
    } catch (err) {
      return fail(err);
    }
    j.if_rendered = out;
    const t = out.trim();
    if (t !== 'true' && t !== 'false')
      return fail(
        new Error(`if: rendered ${JSON.stringify(t.slice(0, 80))}, expected true or false`),
      );
    j.if = t === 'true';
    if (!j.if) return j;
  }

  let key: string;
  try {
    key = render(def.dedupe_key ?? DEFAULT_DEDUPE_KEY, data, 'dedupe_key');
  } catch (err) {
    return fail(err);
  }
  // An empty key would dedupe every event against every other; the event's id is the safe default.
  j.dedupe_key = key === '' ? event.id : key;
  j.would_dedupe = ctx.holdsKey(j.dedupe_key);
  if (j.would_dedupe) {
    j.outcome = 'deduped';
    return j;
  }
  if (ctx.seeding) {
    j.outcome = 'seeded';
    return j;
  }
  const max = def.limits?.max_per_hour;
  if (max !== undefined && ctx.firedLastHour() >= max) {
    j.outcome = 'rate_limited';
    return j;
  }

  try {
    if (def.action.type === 'create_task') j.action = planCreate(def, data, ctx);
    else {
      const target = resolveTarget(def, data, ctx);
      if (!target.ok) return Object.assign(j, target.judgement);
      j.action = planReaction(def, data, target);
    }
  } catch (err) {
    return fail(err);
  }

  const overrun = overrunOf(def);
  if (def.concurrency_key !== undefined || overrun !== 'parallel') {
    let ck = '';
    if (def.concurrency_key !== undefined) {
      try {
        ck = render(def.concurrency_key, data, 'concurrency_key');
      } catch (err) {
        return fail(err);
      }
    }
    j.concurrency_key = ck;
    j.in_flight = ctx.inFlight(ck);
    if (overrun !== 'parallel') {
      j.overrun = overrun;
      if (j.in_flight.length > 0) {
        if (overrun === 'skip') {
          j.would_skip = true;
          j.outcome = 'skipped';
          return j;
        }
        if (overrun === 'queue') {
          j.would_queue = true;
          j.outcome = 'queued';
          return j;
        }
        j.would_cancel = true;
      }
    }
  }
  j.outcome = 'fired';
  return j;
}
