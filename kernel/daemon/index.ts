/**
 * daemon: the process around the kernel — directories, token, the data-directory lock,
 * daemon.json discovery. The foreground run loop builds the kernel, so it lives above it, in
 * kernel/listener.ts. Used by: bin/svc.ts, the CLI, tests.
 */
export { installLastResort, LAST_RESORT_MESSAGE } from './last-resort.js';
export { acquireDaemonLock, DaemonLockedError } from './lock.js';
export { type NpmPathResult, pathWithoutNpmPrefix } from './npm-path.js';
export { ensurePrivateDir, type Paths, pathsFor, resolvePaths } from './paths.js';
export { DAEMON_NODE_FLAGS, type DaemonJson } from './process.js';
export { DaemonState } from './state.js';
export { loadOrCreateToken } from './token.js';
