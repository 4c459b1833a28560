/**
 * The dry runs (SPEC §4.6 `test` and `poll`): the real pipeline — match, allowed_actors, if, the
 * dedupe lookup, the rate limit, the action templates, the overrun check — with no ledger row,
 * no cursor, no task. Both work while the trigger or `triggers.enabled` is off. An invalid file
 * is 400 with its findings; `poll` runs the source once (a command really runs) and is 400 for
 * sources with nothing to run once (push and schedule).
 */
import { SvcError } from '../errors.js';
import type { TriggerEvent } from '../plugin/index.js';
import type { TriggerDefinition } from './definition.js';
import type { TriggerFile } from './files.js';
import { eventIdOf } from './firing.js';
import { type Judgement, judge } from './judge.js';
import type { TriggerService } from './runtime.js';

export type PublicJudgement = Omit<Judgement, 'envelope'>;

export interface DryPoll {
  seed: boolean;
  events: PublicJudgement[];
  truncated: number;
  refused: number;
  cursor?: string;
  error?: string;
}

/** The file by id with a valid definition: 404 without a file, 400 with the findings when invalid. */
export function validFile(
  triggers: TriggerService,
  id: string,
): { file: TriggerFile; def: TriggerDefinition } {
  const file = triggers.files.read(id);
  if (!file) throw new SvcError('not_found', `trigger ${id} not found`);
  const def = file.validation.definition;
  if (!def)
    throw new SvcError('validation_failed', `trigger ${id} does not validate`, {
      errors: JSON.stringify(file.validation.findings),
    });
  return { file, def };
}

function project(triggers: TriggerService, def: TriggerDefinition) {
  const p = triggers.projectOf(def);
  if (!p)
    throw new SvcError('validation_failed', `project ${def.project_id} not found`, {
      field: 'project_id',
    });
  return p;
}

function strip(j: Judgement): PublicJudgement {
  const { envelope: _envelope, ...rest } = j;
  return rest;
}

export function dryTest(
  triggers: TriggerService,
  id: string,
  event: Record<string, unknown>,
): PublicJudgement {
  const { def } = validFile(triggers, id);
  const p = project(triggers, def);
  const normalized: TriggerEvent = { ...event, id: eventIdOf(event) };
  return strip(judge(def, normalized, triggers.judgeContext(def, p, false)));
}

export async function dryPoll(
  triggers: TriggerService,
  id: string,
  signal: AbortSignal,
): Promise<DryPoll> {
  const { def } = validFile(triggers, id);
  const source = triggers.sourceOf(def);
  if (!source?.poll || source.meta.kind !== 'poll')
    throw new SvcError(
      'validation_failed',
      `trigger ${id} has a ${def.source.type} source, which has nothing to run once`,
      { field: 'source.type' },
    );
  const p = project(triggers, def);
  const seed = triggers.seedsNext(def);
  const cursor = seed ? null : (triggers.state.get(def.id)?.cursor ?? '');
  let result: Awaited<ReturnType<NonNullable<typeof source.poll>>>;
  try {
    result = await source.poll(triggers.pollContext(def, p, signal), def.source, cursor);
  } catch (err) {
    result = { ok: false, error: `the source failed: ${(err as Error).message}` };
  }
  if (!result.ok) return { seed, events: [], truncated: 0, refused: 0, error: result.error };
  // The real poll writes a row per event before judging the next; the dry run remembers instead.
  const base = triggers.judgeContext(def, p, seed);
  const held = new Set<string>();
  let fired = 0;
  const ctx = {
    ...base,
    holdsKey: (k: string) => held.has(k) || base.holdsKey(k),
    firedLastHour: () => base.firedLastHour() + fired,
  };
  const events = result.events.map((e) => {
    const j = judge(def, { ...e, id: eventIdOf(e) }, ctx);
    if ((j.outcome === 'fired' || j.outcome === 'seeded' || j.outcome === 'queued') && j.dedupe_key)
      held.add(j.dedupe_key);
    if (j.outcome === 'fired') fired++;
    return strip(j);
  });
  const out: DryPoll = { seed, events, truncated: result.truncated, refused: result.refused };
  if (result.cursor !== null) out.cursor = result.cursor;
  return out;
}
