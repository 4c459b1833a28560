/**
 * daemon: the process around the kernel — directories, token, the data-directory lock,
 * daemon.json discovery and the foreground run loop. Used by: bin/svc.ts, the CLI, tests.
 */
export { installLastResort, LAST_RESORT_MESSAGE } from './last-resort.js';
export { DaemonLockedError } from './lock.js';
export { ensurePrivateDir, type Paths, pathsFor, resolvePaths } from './paths.js';
export { DAEMON_NODE_FLAGS, type DaemonJson, type RunningDaemon, runDaemon } from './run.js';
export { DaemonState } from './state.js';
export { loadOrCreateToken } from './token.js';
