/**
 * A step's process, moved into a container (SPEC §2.10): `<runtime> run --rm -i` of the configured
 * image with the project repository and the worktree mounted at their own host paths, the agent
 * configuration under a writable `/svc-home` used as HOME, the extra mounts, no network when asked,
 * the daemon's user, and the environment passed by name (`-e NAME`, values taken from the runtime
 * client's own environment) so no value ever appears in a process list; only the names listed reach
 * the container, so the client's own host variables stay outside. One container per attempt
 * (decision 019); killing the attempt kills its container.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AGENT_CONFIG_PATHS, CONTAINER_HOME, type ContainerSettings } from './settings.js';

export interface WrapInput {
  settings: ContainerSettings;
  name: string;
  file: string;
  args: string[];
  cwd: string;
  /** The step's environment inside the container (already without inherited host variables). */
  env: Record<string, string>;
  /** The runtime client's own environment on the host (the environment policy as configured). */
  clientEnv: Record<string, string>;
  mounts: string[];
  /**
   * Host directories the step reads but must not change, mounted read-only at their own paths:
   * the attempt's scratch directory, where the kernel wrote the files its CLI is pointed at
   * (claude's `--mcp-config`, decision 126).
   */
  readOnlyMounts?: string[];
  interactive: boolean;
  home?: string;
}

export interface Wrapped {
  file: string;
  args: string[];
  /** The runtime client's own environment: PATH to find it, and every value the container gets by name. */
  env: Record<string, string>;
}

export function wrapInContainer(w: WrapInput): Wrapped {
  const { settings } = w;
  const args = ['run', '--rm', '-i', '--init', '--name', w.name, '--label', 'svc=step'];
  if (typeof process.getuid === 'function' && typeof process.getgid === 'function')
    args.push('--user', `${process.getuid()}:${process.getgid()}`);
  for (const m of [...new Set(w.mounts)]) args.push('-v', `${m}:${m}`);
  for (const m of [...new Set(w.readOnlyMounts ?? [])]) args.push('-v', `${m}:${m}:ro`);
  const home = w.home ?? homedir();
  if (settings.mount_agent_config) {
    for (const rel of AGENT_CONFIG_PATHS) {
      const host = join(home, rel);
      if (existsSync(host)) args.push('-v', `${host}:${CONTAINER_HOME}/${rel}`);
    }
  }
  for (const m of settings.extra_mounts) args.push('-v', m);
  if (!settings.network) args.push('--network', 'none');
  else if (settings.runtime === 'docker')
    args.push('--add-host', 'host.docker.internal:host-gateway');
  const env = { ...w.env, HOME: CONTAINER_HOME };
  for (const k of Object.keys(env).sort()) args.push('-e', k);
  args.push('-w', w.cwd, settings.image, w.file, ...w.args);
  return {
    file: settings.runtime,
    args,
    env: { ...w.clientEnv, ...env },
  };
}
