/**
 * The registry's answers as the routes return them: the row of `GET /v1/workflows` (decision 029)
 * and the body of `GET /v1/workflows/definition`, built from a ranked entry.
 */
import { inlinedWorkflow, runsAgent } from '../plugin/index.js';
import { type HostPlatform, platformAdmits } from './format.js';
import type {
  RankedEntry,
  WorkflowDefinitionView,
  WorkflowEntry,
  WorkflowListRow,
} from './registry-entries.js';
import { childrenOf, isRecord, withDerivedIds } from './tree.js';
import type { StepTypeSource } from './validate.js';

/** The `GET /v1/workflows` row of one ranked entry. */
export function listRow(
  e: RankedEntry,
  types: StepTypeSource,
  host: HostPlatform,
): WorkflowListRow {
  const def = e.validation.definition;
  const platforms = platformsOf(e);
  const steps = def ? withDerivedIds(def.steps, types) : [];
  return {
    name: e.name,
    scope: e.scope,
    project_id: e.project_id,
    file: e.file,
    version: e.version,
    digest: e.digest,
    status: e.status,
    shadowed_by: e.shadowed_by,
    description: def?.description ?? '',
    platforms,
    platform_supported: platformAdmits(platforms, host),
    fields: e.validation.fields,
    steps: steps.map((s) => {
      const row: { id: string; name: string; type: string; agent?: string } = {
        id: s.id as string,
        name: typeof s.name === 'string' ? s.name : (s.id as string),
        type: s.type,
      };
      const agent = runsAgent(types, s.type) ? (s.agent ?? def?.defaults?.agent) : undefined;
      if (typeof agent === 'string') row.agent = agent;
      return row;
    }),
    includes: def ? includesOf(def.steps, types) : [],
    requires_input: e.validation.fields.some((f) => f.required && f.default === undefined),
    errors: e.validation.errors,
    warnings: e.validation.warnings,
  };
}

/** The `GET /v1/workflows/definition` body of one ranked entry. */
export function definitionView(e: RankedEntry, host: HostPlatform): WorkflowDefinitionView {
  const def = e.validation.definition;
  return {
    name: e.name,
    scope: e.scope,
    project_id: e.project_id,
    file: e.file,
    version: e.version,
    digest: e.digest,
    status: e.status,
    platforms: platformsOf(e),
    platform_supported: platformAdmits(platformsOf(e), host),
    errors: e.validation.errors,
    warnings: e.validation.warnings,
    definition: def,
  };
}

function platformsOf(e: WorkflowEntry): string[] {
  return e.validation.definition?.platforms ?? [];
}

function includesOf(steps: readonly unknown[], types: StepTypeSource): string[] {
  const out = new Set<string>();
  const visit = (s: unknown) => {
    if (!isRecord(s)) return;
    const inlined = inlinedWorkflow(types, s);
    if (inlined) out.add(inlined.name);
    for (const kid of childrenOf(s, types)) {
      if (kid.kind === 'list') kid.steps.forEach(visit);
    }
  };
  steps.forEach(visit);
  return [...out];
}
