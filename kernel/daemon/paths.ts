/**
 * Where svc keeps its files (SPEC preface "Default directories", §5). Both directories are
 * owner-only; the daemon re-tightens them on every start because a user's `cp -r` or umask can
 * loosen them behind our back.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface Paths {
  configDir: string;
  dataDir: string;
  configFile: string;
  tokenFile: string;
  daemonJson: string;
  lockFile: string;
  logFile: string;
  dbFile: string;
  worktreesDir: string;
  transcriptsDir: string;
  workflowsDir: string;
  triggersDir: string;
}

export function resolvePaths(env: NodeJS.ProcessEnv = process.env): Paths {
  const home = env.HOME || homedir();
  const configDir =
    env.SVC_CONFIG_DIR ||
    (env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, 'svc') : join(home, '.config', 'svc'));
  const dataDir =
    env.SVC_DATA_DIR ||
    (env.XDG_DATA_HOME ? join(env.XDG_DATA_HOME, 'svc') : join(home, '.local', 'share', 'svc'));
  return pathsFor(configDir, dataDir);
}

export function pathsFor(configDir: string, dataDir: string): Paths {
  return {
    configDir,
    dataDir,
    configFile: join(configDir, 'config.yaml'),
    workflowsDir: join(configDir, 'workflows'),
    triggersDir: join(configDir, 'triggers'),
    tokenFile: join(dataDir, 'token'),
    daemonJson: join(dataDir, 'daemon.json'),
    lockFile: join(dataDir, 'daemon.lock'),
    logFile: join(dataDir, 'daemon.log'),
    dbFile: join(dataDir, 'svc.db'),
    worktreesDir: join(dataDir, 'worktrees'),
    transcriptsDir: join(dataDir, 'transcripts'),
  };
}

/** Creates a directory (and parents) and forces mode 0700 on it. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32') chmodSync(dir, 0o700);
}
