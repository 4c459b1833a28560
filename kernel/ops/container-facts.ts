/**
 * The doctor's `container` group (decision 062 records its shape) and `/v1/info.container`.
 * With `container.image` empty no runtime is consulted at all (SPEC §2.10): the group says so and
 * nothing is looked up. With an image set, the runtime CLI is looked up on PATH and, when probing,
 * asked its version. A missing runtime is information, never a doctor problem (the problems set is
 * closed); task creation is where it refuses (SPEC §2.10 conditions table, not this room).
 */
import type { Config } from '../config/index.js';
import { collect } from '../launch/index.js';
import { resolveEnvironment } from '../proc/index.js';
import { whichBinary } from './agent-facts.js';

export interface ContainerGroup {
  /** An image is configured, so steps run in containers. */
  enabled: boolean;
  image: string;
  runtime: string;
  /** false when no runtime was consulted (no image). */
  consulted: boolean;
  runtime_path: string | null;
  /** null when not consulted; false when the binary is missing or its version probe failed. */
  available: boolean | null;
  version: string | null;
  error?: string;
}

export const CONTAINER_PROBE_TIMEOUT_MS = 10_000;

export function containerInfo(config: Config): {
  enabled: boolean;
  image: string;
  runtime: string;
} {
  return {
    enabled: config.container.image !== '',
    image: config.container.image,
    runtime: config.container.runtime,
  };
}

export async function containerGroup(config: Config, probe: boolean): Promise<ContainerGroup> {
  const base = containerInfo(config);
  if (!base.enabled) {
    return { ...base, consulted: false, runtime_path: null, available: null, version: null };
  }
  const env = resolveEnvironment(config.environment);
  const path = whichBinary(base.runtime, env.PATH ?? process.env.PATH);
  if (!path) {
    return {
      ...base,
      consulted: true,
      runtime_path: null,
      available: false,
      version: null,
      error: `${base.runtime} is not on PATH`,
    };
  }
  if (!probe)
    return { ...base, consulted: true, runtime_path: path, available: true, version: null };
  const c = await collect(path, ['--version'], { env, timeoutMs: CONTAINER_PROBE_TIMEOUT_MS });
  const ok = !c.error && c.code === 0;
  const out = (
    ok ? c.stdout : c.stderr || c.error?.message || `exited with status ${c.code}`
  ).trim();
  return ok
    ? { ...base, consulted: true, runtime_path: path, available: true, version: out }
    : {
        ...base,
        consulted: true,
        runtime_path: path,
        available: false,
        version: null,
        error: out || `${base.runtime} --version failed`,
      };
}
