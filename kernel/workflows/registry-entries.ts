/**
 * What the workflow registry (registry.ts) holds and answers with: the project lookup it is built
 * with, each workflow file or built-in as loaded and as ranked within one view, the rows of
 * `GET /v1/workflows` and `GET /v1/workflows/definition`, and the ranking itself. Precedence:
 * project over global over built-in by name; within a scope the first file by path wins and later
 * ones are listed as `duplicate` (decision 029).
 */
import { createHash } from 'node:crypto';
import type { Finding } from '../input/index.js';
import type { FieldDecl } from './fields.js';
import { type HostPlatform, platformAdmits, type WorkflowDef } from './format.js';
import type { WorkflowScope, WorkflowSource } from './snapshot.js';

/** A project as the registry needs it; the projects store implements the lookup. */
export interface ProjectRef {
  id: number;
  name: string;
  /** The repository root. */
  path: string;
}

export interface ProjectLookup {
  /** The project, or undefined when no project has that id. */
  get(id: number): ProjectRef | undefined;
  list(): ProjectRef[];
}

/** No projects: the lookup in force until the projects store registers the real one. */
export const NO_PROJECTS: ProjectLookup = { get: () => undefined, list: () => [] };

export type EntryStatus = 'ok' | 'invalid' | 'unsupported' | 'shadowed' | 'duplicate';

/** One workflow file (or built-in) as loaded. */
export interface WorkflowEntry extends WorkflowSource {
  project_id: number | null;
  /** Absolute path; null for a built-in. */
  file: string | null;
  /** Opaque precondition token of the bytes (the `version` of PATCH). */
  version: string;
  /** The file's bytes as text; null when refused unread (over 1 MiB). */
  text: string | null;
}

/** An entry ranked within one view. */
export interface RankedEntry extends WorkflowEntry {
  status: EntryStatus;
  winner: boolean;
  /** The entry that wins this name, for a shadowed or duplicate one. */
  shadowed_by: { scope: WorkflowScope; file: string | null } | null;
}

/** `GET /v1/workflows` row (decision 029). */
export interface WorkflowListRow {
  name: string;
  scope: WorkflowScope;
  project_id: number | null;
  file: string | null;
  version: string;
  digest: string;
  status: EntryStatus;
  shadowed_by: { scope: WorkflowScope; file: string | null } | null;
  description: string;
  platforms: string[];
  platform_supported: boolean;
  fields: FieldDecl[];
  steps: Array<{ id: string; name: string; type: string; agent?: string }>;
  includes: string[];
  requires_input: boolean;
  errors: Finding[];
  warnings: Finding[];
}

/** `GET /v1/workflows/definition` body. */
export interface WorkflowDefinitionView {
  name: string;
  scope: WorkflowScope;
  project_id: number | null;
  file: string | null;
  version: string;
  digest: string;
  status: EntryStatus;
  platforms: string[];
  platform_supported: boolean;
  errors: Finding[];
  warnings: Finding[];
  /** The file as authored (steps as written, `defaults` separate); null when it does not validate. */
  definition: WorkflowDef | null;
}

export interface RegistryView {
  project: ProjectRef | null;
  /** Every entry of the view, ranked. */
  entries: RankedEntry[];
  /** The shadowing winner of `name`. */
  find(name: string): RankedEntry | undefined;
}

const SCOPE_RANK: Record<WorkflowScope, number> = { project: 3, global: 2, builtin: 1 };

export function digestOf(text: string | Buffer): { digest: string; version: string } {
  const hex = createHash('sha256').update(text).digest('hex');
  return { digest: `sha256:${hex}`, version: hex.slice(0, 32) };
}

/** Ranks loaded entries: the winner per name, shadowed and duplicate losers, statuses. */
export function rank(loaded: readonly WorkflowEntry[], host: HostPlatform): RegistryView {
  const byName = new Map<string, WorkflowEntry[]>();
  for (const e of loaded) byName.set(e.name, [...(byName.get(e.name) ?? []), e]);
  const entries: RankedEntry[] = [];
  const winners = new Map<string, RankedEntry>();
  for (const [name, group] of byName) {
    const ordered = [...group].sort(
      (a, b) =>
        SCOPE_RANK[b.scope] - SCOPE_RANK[a.scope] || (a.file ?? '').localeCompare(b.file ?? ''),
    );
    const [first, ...rest] = ordered as [WorkflowEntry, ...WorkflowEntry[]];
    const status: EntryStatus =
      first.validation.errors.length > 0
        ? 'invalid'
        : platformAdmits(first.validation.definition?.platforms, host)
          ? 'ok'
          : 'unsupported';
    const winner: RankedEntry = { ...first, status, winner: true, shadowed_by: null };
    winners.set(name, winner);
    entries.push(winner);
    for (const e of rest) {
      entries.push({
        ...e,
        status: e.scope === first.scope ? 'duplicate' : 'shadowed',
        winner: false,
        shadowed_by: { scope: first.scope, file: first.file },
      });
    }
  }
  entries.sort(
    (a, b) =>
      a.name.localeCompare(b.name) ||
      Number(b.winner) - Number(a.winner) ||
      SCOPE_RANK[b.scope] - SCOPE_RANK[a.scope] ||
      (a.file ?? '').localeCompare(b.file ?? ''),
  );
  return {
    project: null,
    entries,
    find: (name) => winners.get(name),
  };
}
