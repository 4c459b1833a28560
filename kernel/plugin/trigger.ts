/**
 * The trigger source contract (SPEC §2.6, §4.6): where a trigger's events come from. A source is
 * one self-describing module: `type` (what users write as `source.type`), a strict zod `schema`
 * for the `source:` block, `meta` rows for `GET /v1/triggers/schema`, and exactly one way of
 * producing events, chosen by `meta.kind`:
 *
 * - `poll`: the runtime calls `poll()` every `poll_interval` (command, forge_issues, forge_prs);
 * - `push`: the ingress route hands a signed request to `accept()` (http);
 * - `schedule`: the runtime asks `schedule()` for occurrences on its anchored clock (schedule).
 *
 * A source never writes state: it returns events and a cursor and the kernel judges, records and
 * acts (decision 080). Failures are values (`{ok:false, error}`), never thrown, so a user plugin
 * that bundles its own helpers is judged on data alone.
 */
import { type ZodType, z } from 'zod';
import { tryParseDuration } from '../config/duration.js';

/** One event: a JSON object whose `id` names it. Every other key is the source's own. */
export type TriggerEvent = { id: string } & Record<string, unknown>;

/** Controls of the trigger schema route: the workflow vocabulary plus the trigger's own. */
export type TriggerControl =
  | 'string'
  | 'text'
  | 'enum'
  | 'bool'
  | 'int'
  | 'duration'
  | 'list'
  | 'map'
  | 'template'
  | 'workflow'
  | 'agent'
  | 'model'
  | 'effort'
  | 'source'
  | 'action'
  | 'limits'
  | 'signature'
  | 'match'
  | 'project'
  | 'number';

/** A value whose use needs a warning in an editor (`enabled: true`, `on_fire: create`, …). */
export interface DangerousValue {
  value: string | number | boolean;
  warning: string;
}

/** One field row of `GET /v1/triggers/schema`. */
export interface TriggerFieldRow {
  name: string;
  control: TriggerControl;
  values?: readonly string[];
  required?: boolean;
  default?: string | number | boolean | readonly string[];
  help?: string;
  dangerous?: readonly DangerousValue[];
}

export interface TriggerSourceMeta {
  /** How the source produces events; decides which of poll/accept/schedule must exist. */
  kind: 'poll' | 'push' | 'schedule';
  /** One line for the schema route and docs. */
  help: string;
  /** Field rows of the `source:` block, `type` excluded. */
  rows: readonly TriggerFieldRow[];
  /** Rows of the block a `signature`-control row opens (push sources that check signatures). */
  signature?: readonly TriggerFieldRow[];
  /** Values the source writes into `event.kind`, when it writes one. */
  events?: readonly string[];
  /**
   * Event keys whose values the source vouches for (ids, numbers, logins the code host
   * authenticated). Every other key is text an outsider may have written: it must reach commands
   * only as an environment variable or a task field.
   */
  trusted?: readonly string[];
}

/** What a poll may use. Everything that touches the world goes through here. */
export interface TriggerPollContext {
  readonly triggerId: string;
  readonly project: { id: number; name: string; path: string; default_branch: string };
  /** The §8 cap: a poll returns at most this many events and counts the rest in `truncated`. */
  readonly maxEvents: number;
  readonly signal: AbortSignal;
  /**
   * Runs argv (never a shell line) in the project directory with the daemon's environment policy
   * plus `env`. A missing program or a timeout is a value in the result, never a throw.
   */
  run(
    argv: readonly string[],
    opts: { env?: Record<string, string>; timeoutMs: number; maxOutputBytes?: number },
  ): Promise<{
    code: number | null;
    stdout: string;
    stderr: string;
    timedOut: boolean;
    spawnError: string | null;
    overflow: boolean;
  }>;
  /**
   * The project's code host, resolved (origin remote, forge plugin, credentials). A failure names
   * why the integration is unusable (`forge_disabled`, `forge_not_detected`, …).
   */
  forge(): Promise<
    | { ok: true; repo: import('./forge.js').ForgeRepo; conn: import('./forge.js').ForgeConnection }
    | { ok: false; reason: string; message: string }
  >;
}

export type PollResult =
  | {
      ok: true;
      events: TriggerEvent[];
      /** The watermark to pass to the next poll; null keeps the previous one. */
      cursor: string | null;
      /**
       * Events past `maxEvents`. Those the returned cursor leaves for the next poll come again;
       * the rest must be listed in `dropped`.
       */
      truncated: number;
      /**
       * Events past `maxEvents` that the next poll will not show again (the cursor moved past
       * them). The kernel records each in the ledger, with outcome `truncated` (or `seeded` on a
       * seeding poll), so no event goes unaccounted (decision 196). Absent means none.
       */
      dropped?: TriggerEvent[];
      /** Output the source could not read as events (a command's non-event lines). */
      refused: number;
    }
  | { ok: false; error: string };

/** A push: the ingress request as received. `raw` is the body's exact bytes (for signatures). */
export interface IngressRequest {
  raw: Buffer;
  body: unknown;
  /** Header names lowercased. */
  headers: Record<string, string | undefined>;
  /** Milliseconds since the epoch, from the daemon's clock. */
  now: number;
  /** The daemon's environment after its policy (secrets named by `secret_env` are read here). */
  env: Record<string, string>;
}

export type AcceptResult =
  | { ok: true; event: TriggerEvent }
  | {
      ok: false;
      /** `signature_missing`, `signature_mismatch`, `timestamp_stale`, `secret_missing`, `not_an_event`, `event_id_invalid`. */
      reason: string;
      message: string;
    };

/** Occurrences of a schedule: pure functions of the definition, so the kernel owns the clock. */
export interface TriggerSchedule {
  /** The first occurrence strictly after `after`, or null when there is none. */
  next(after: Date): Date | null;
  /** The event for the occurrence at `at`. */
  event(at: Date): TriggerEvent;
}

export interface TriggerSource<S = unknown> {
  /** The id users write as `source.type`, equal to the plugin folder name. */
  readonly type: string;
  /** Strict zod schema of the `source:` block, `type: z.literal(type)` included. */
  readonly schema: ZodType<S>;
  readonly meta: TriggerSourceMeta;
  /**
   * `kind: 'poll'`. `cursor` is null on the first poll after arming (the seeding poll), and `''`
   * afterwards when the source never returned one. On the seeding poll a source
   * that keeps a snapshot builds it then and returns no events; one that can only list (a
   * command) returns what it sees and the kernel records those events as seeded.
   */
  poll?(ctx: TriggerPollContext, def: S, cursor: string | null): Promise<PollResult>;
  /** `kind: 'push'`. Checks the request (signature, replay window) and turns it into one event. */
  accept?(def: S, req: IngressRequest): AcceptResult;
  /** `kind: 'schedule'`. */
  schedule?(def: S): TriggerSchedule;
  /** The poll interval of a definition in milliseconds (`kind: 'poll'`). */
  interval?(def: S): number;
}

/** Identity helper giving plugin authors type checking; the registry checks the shape at load. */
export function defineTriggerSource<S>(source: TriggerSource<S>): TriggerSource<S> {
  return source;
}

/**
 * A duration key of a source block (`poll_interval`, `timeout`): the string as written, checked
 * to be at least `minMs`. Read it with `durationMs`.
 */
export function durationField(what: string, fallback: string, minMs: number) {
  return z
    .string({ error: `${what} must be a duration such as 5m` })
    .refine(
      (v) => {
        const ms = tryParseDuration(v);
        return ms !== null && ms >= minMs;
      },
      `${what} must be a duration of at least ${minMs >= 1000 ? `${minMs / 1000}s` : `${minMs}ms`} (such as 5m)`,
    )
    .default(fallback);
}

/** Milliseconds of a duration string a schema already accepted. */
export function durationMs(text: string): number {
  return tryParseDuration(text) ?? 0;
}
