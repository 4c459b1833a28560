/**
 * The daemon run in this process (`runDaemon`), on fresh config and data directories named the way
 * the CLI and the API client find them through their environment.
 */
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { pathsFor } from '../../kernel/daemon/paths.js';
import { type RunningDaemon, runDaemon } from '../../kernel/listener.js';
import { tempDir } from './tmp.js';

export type DaemonEnv = { SVC_CONFIG_DIR: string; SVC_DATA_DIR: string };

/** `SVC_CONFIG_DIR` and `SVC_DATA_DIR` under a new temporary root; nothing is created in them. */
export function daemonEnv(): DaemonEnv {
  const root = tempDir();
  return { SVC_CONFIG_DIR: join(root, 'config'), SVC_DATA_DIR: join(root, 'data') };
}

/** Runs the daemon on `env`'s directories; it is stopped when the calling test finishes. */
export async function startDaemon(env: DaemonEnv): Promise<RunningDaemon> {
  const daemon = await runDaemon(pathsFor(env.SVC_CONFIG_DIR, env.SVC_DATA_DIR));
  onTestFinished(() => daemon.stop());
  return daemon;
}
