/**
 * The default source of agent, model and effort value sets for validation and the schema route:
 * every registered agent adapter with its curated catalogue. The container registers it as
 * `agentValues`, so a richer source (probed catalogues from /v1/agents) can replace it.
 */
import type { AgentValueSets, Registry } from '../plugin/index.js';

export function agentValuesFrom(registry: Pick<Registry, 'listAgents'>): () => AgentValueSets {
  return () => {
    const adapters = registry.listAgents();
    const models: Record<string, readonly string[]> = {};
    const efforts: Record<string, readonly string[]> = {};
    for (const a of adapters) {
      // Read as data: a user plugin's adapter may predate the catalogue member.
      const catalogue = (a as { catalogue?: { models?: unknown; efforts?: unknown } }).catalogue;
      models[a.name] = Array.isArray(catalogue?.models) ? (catalogue.models as string[]) : [];
      efforts[a.name] = Array.isArray(catalogue?.efforts) ? (catalogue.efforts as string[]) : [];
    }
    return { agents: adapters.map((a) => a.name), models, efforts };
  };
}
