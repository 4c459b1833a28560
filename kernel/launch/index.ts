/**
 * launch: how svc starts a program — forked in this process, or by the daemon's spawner process
 * (decision 247), one contract either way: argv only, its own process group, output as bytes,
 * backpressure, start failures as errors. Uses: nothing of svc. Used by: proc (steps, agents,
 * probes, notifiers), git, sandbox, ops, and the kernel, which holds the spawner while it runs.
 */

export { inheritedEnv } from './inherited-env.js';
export {
  type Collected,
  collect,
  type LaunchEnd,
  type Launched,
  type Launcher,
  type LaunchSpec,
  launch,
  localLauncher,
  processStartTicks,
} from './launch.js';
export { SpawnerLauncher, spawnerPid, spawnerScript, useSpawner } from './spawner-client.js';
