/**
 * sandbox: running steps in a container of the configured runtime (SPEC §2.10 container rules,
 * decision 019). Settings merge, runtime and image checks, and the wrapper that moves one step's
 * process into a container. Uses: config. Used by: engine (creation checks, admission, spawning).
 */
export { ensureImage, killContainer, runtimeProblem } from './runtime.js';
export {
  AGENT_CONFIG_PATHS,
  CONTAINER_HOME,
  type ContainerSettings,
  effectiveContainer,
  hostAlias,
} from './settings.js';
export { type Wrapped, wrapInContainer } from './wrap.js';
