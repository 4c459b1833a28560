/**
 * forge: the code-host integration as the kernel uses it (SPEC §2.10 `forge.*`, §4.4 rules 7–9).
 * Detects which registered forge plugin names a project's `origin`, connects with the
 * credentials already in the daemon's environment (the plugin decides how: GitHub drives `gh`,
 * else reads GH_TOKEN/GITHUB_TOKEN), turns an unusable integration into a stable 409 reason, and
 * runs the reconciler at `forge.poll_interval`. Stores no credential.
 * Uses: plugin registry, config, clock, git, proc, store, events, projects.
 * Used by: engine (ForgePort at task creation), triggers (forge sources), http.
 * Decisions: 086, 087.
 */
export { ForgeReconciler, type PullStateRow, type ReconcileReport } from './reconciler.js';
export { type ForgeResolution, ForgeService, reasonFor } from './service.js';
