/**
 * `POST /v1/resolve` (SPEC §4.3, decision 045): what a candidate task would run with, before it
 * exists. Per top-level step, agent/model/effort as `{value, source}` (null for a step that is not
 * an agent step, at its index), the agent steps nested inside it, and with `project_id` the branch
 * the task would get as `{value, source, placeholder}`. The task id is not known yet, so a branch
 * rule that uses it is rendered with a literal `<id>` (`placeholder: true`).
 */
import { branchFor, type WorkflowSnapshot } from '../engine/index.js';
import { isSvcError } from '../errors.js';
import { type AgentValueSource, runsAgent } from '../plugin/index.js';
import type { Project } from '../projects/index.js';
import type { StepTypeLookup } from '../workflows/index.js';
import { agentSteps, resolveAgentValues } from './resolve.js';
import type { ResolveBody } from './schemas.js';
import type { AgentService } from './service.js';

type Resolved = { value: string; source: AgentValueSource } | null;

export interface ResolvedStep {
  index: number;
  id: string;
  type: string;
  agent: Resolved;
  model: Resolved;
  effort: Resolved;
  /** Agent steps inside this one (parallel members, loop bodies, lanes, a merge resolver). */
  sub_steps?: Array<
    { where: string; id: string | null } & Omit<ResolvedStep, 'index' | 'id' | 'type' | 'sub_steps'>
  >;
}

export interface ResolvedBranch {
  value: string;
  source: 'default' | 'config' | 'project' | 'task';
  placeholder: boolean;
  /** Present when the branch rule fails for these values (the create would be 400). */
  error?: string;
}

/** A number no template will produce by itself, swapped for `<id>` after rendering. */
const ID_SENTINEL = 918273645546372;

export function previewBranch(
  body: ResolveBody,
  project: Project,
  configTemplate: string,
): ResolvedBranch {
  const literal = body.branch_name?.trim();
  try {
    const b = branchFor({
      id: ID_SENTINEL,
      title: body.title ?? '',
      baseBranch: body.base_branch ?? project.default_branch,
      fields: body.fields ?? {},
      project,
      literal,
      configTemplate,
    });
    const placeholder = b.name.includes(String(ID_SENTINEL));
    return {
      value: b.name.split(String(ID_SENTINEL)).join('<id>'),
      source: b.source,
      placeholder,
    };
  } catch (err) {
    const source = literal
      ? 'task'
      : project.branch_template
        ? 'project'
        : configTemplate
          ? 'config'
          : 'default';
    return {
      value: '',
      source,
      placeholder: false,
      error: isSvcError(err) ? err.message : String(err),
    };
  }
}

export function previewSteps(
  snapshot: WorkflowSnapshot,
  body: ResolveBody,
  service: AgentService,
  types: StepTypeLookup,
): ResolvedStep[] {
  const overrides = { agent: body.agent, model: body.model, effort: body.effort };
  return snapshot.steps.map((step, index) => {
    const scope = {
      overrides,
      defaults: snapshot.defaults,
      carried: step.include_defaults as Record<string, unknown> | undefined,
    };
    const own = runsAgent(types, step.type) ? resolveAgentValues(step, scope, service) : null;
    const nested = agentSteps([step], { overrides, defaults: snapshot.defaults }, types)
      .filter((f) => f.step !== step)
      .map((f) => {
        const v = resolveAgentValues(f.step, f.scope, service);
        return {
          where: f.where.replace(/^steps\[0\]/, `steps[${index}]`),
          id: typeof f.step.id === 'string' ? f.step.id : null,
          agent: v.agent,
          model: v.model,
          effort: v.effort,
        };
      });
    return {
      index,
      id: step.id,
      type: step.type,
      agent: own?.agent ?? null,
      model: own?.model ?? null,
      effort: own?.effort ?? null,
      ...(nested.length > 0 && { sub_steps: nested }),
    };
  });
}
