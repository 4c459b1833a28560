/**
 * Which container a task's steps run in (SPEC §2.10 container rules): the daemon's `container`
 * block with the workflow's `defaults.container` merged over it field by field. An empty image
 * means the host, and then no runtime is consulted at all.
 */
import type { Config } from '../config/index.js';

export interface ContainerSettings {
  image: string;
  runtime: 'docker' | 'podman';
  mount_agent_config: boolean;
  network: boolean;
  extra_mounts: string[];
}

export function effectiveContainer(
  config: Config,
  workflowDefaults: Record<string, unknown> | undefined,
): ContainerSettings | null {
  const own = (workflowDefaults?.container ?? {}) as Partial<ContainerSettings>;
  const merged: ContainerSettings = {
    image: own.image ?? config.container.image,
    runtime: own.runtime ?? config.container.runtime,
    mount_agent_config: own.mount_agent_config ?? config.container.mount_agent_config,
    network: own.network ?? config.container.network,
    extra_mounts: own.extra_mounts ?? config.container.extra_mounts,
  };
  return merged.image === '' ? null : merged;
}

/** The address a containerized agent uses to reach the daemon on the host. */
export function hostAlias(runtime: ContainerSettings['runtime']): string {
  return runtime === 'podman' ? 'host.containers.internal' : 'host.docker.internal';
}

/** Agent configuration directories and files mounted under the container's home (when they exist). */
export const AGENT_CONFIG_PATHS = [
  '.claude',
  '.claude.json',
  '.codex',
  '.cursor',
  '.config/cursor',
];

export const CONTAINER_HOME = '/svc-home';
