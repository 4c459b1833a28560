/**
 * agents: the kernel's side of agent CLIs (SPEC §2.3, §2.4, §4.1 `/v1/agents`, §4.3 `/v1/resolve`,
 * §4.4 create rules 2 and 5). Where each CLI is (config path, else PATH), a probe cache keyed by
 * path + mtime + version, merged catalogues and verdicts, usage quota (observations persisted,
 * readings in memory), resolution of agent/model/effort, the task-creation checks, and the
 * `AgentHost` agent steps run through (`StepContext.services.agents`).
 * Uses: plugin registry (adapters), config, clock, store, events, proc, workflows (step walk).
 * Used by: kernel wiring, http routes, the engine (AgentPort), doctor and info (rows).
 * Decisions: 040–047, 110–118.
 */
export { agentPort } from './check.js';
export { type Location, locateBinary, type PathProblem, pathProblem } from './locate.js';
export { probeRunner } from './probe-runner.js';
export { type QuotaBlock, QuotaBook, READING_REFRESH_MS, ZERO_TIME } from './quota.js';
export { type AgentRecord, buildRecord, type CatalogueValue, mergeCatalogue } from './record.js';
export {
  AgentsQuerySchema,
  agentList,
  type ResolveDeps,
  resolveRequest,
} from './requests.js';
export { agentSteps, resolveAgentValues, type StepScope } from './resolve.js';
export { QuotaPushSchema, ResolveBodySchema } from './schemas.js';
export {
  type AgentFactsRow,
  AgentService,
  FAILED_PROBE_RETRY_MS,
  type McpWiring,
  type ProbeMode,
} from './service.js';
