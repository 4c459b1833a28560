/**
 * A plugin's own shape: the module a plugin default-exports, the API its `setup` registers
 * through, and the version that API carries. Apart from the door so discovery can read them
 * without importing the door that re-exports discovery.
 */
/** The plugin API's own version; a plugin declares the range it was written for in `svc`. */
export const PLUGIN_API_VERSION = '2.0.0';

export interface PluginApi {
  /** Registers an agent adapter under `adapter.name`. A second adapter of the same name stops start-up. */
  registerAgent(adapter: import('./agent.js').AgentAdapter): void;
  /** Registers a step type under `meta.type`. A second step type of the same id stops start-up. */
  registerStepType(stepType: import('./step.js').StepType): void;
  /** Registers a trigger source under `type`. */
  registerTriggerSource(source: import('./trigger.js').TriggerSource): void;
  /** Registers a code-host integration under `name`. */
  registerForge(forge: import('./forge.js').Forge): void;
}

export interface SvcPlugin {
  /** Unique plugin name. Built-ins are `svc:<kind>/<id>` (`svc:agents/claude`); user plugins pick their own. */
  name: string;
  /** Semver range of the plugin API this plugin was written for, e.g. `^2.0.0`. */
  svc: string;
  /** Called once at start-up, before the daemon listens. Throwing stops start-up with a message naming the plugin. */
  setup(api: PluginApi): void | Promise<void>;
}

/** Identity helper that gives plugin authors type checking; the kernel validates the shape at load. */
export function definePlugin(plugin: SvcPlugin): SvcPlugin {
  return plugin;
}
