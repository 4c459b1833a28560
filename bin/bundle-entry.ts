/**
 * The entry of the single-file build (scripts/bundle.ts → dist/svc.cjs): what the launcher
 * (bin/svc.ts) needs from the bundle and nothing else.
 */
export { main } from '../cli/index.js';
export { setHost } from '../shared/host.js';
