/**
 * Talking to the container runtime CLI (docker or podman) — argv only, bounded by timeouts. Used at
 * task creation (is the runtime usable?), at admission (is the image there or pullable?) and to
 * stop a step's container.
 */
import { collect } from '../launch/index.js';

async function run(
  file: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number; stderr: string }> {
  const r = await collect(file, args, { timeoutMs });
  if (r.error) return { code: -1, stderr: r.stderr || r.error.message };
  return { code: r.code ?? -1, stderr: r.stderr };
}

/** Null when the runtime answers; otherwise why it cannot be used. */
export async function runtimeProblem(runtime: string): Promise<string | null> {
  const r = await run(runtime, ['version'], 15_000);
  return r.code === 0
    ? null
    : `container runtime ${runtime} is missing or unusable: ${r.stderr.trim().split('\n')[0] ?? ''}`;
}

/** True when the image is present or could be pulled. */
export async function ensureImage(runtime: string, image: string): Promise<boolean> {
  if ((await run(runtime, ['image', 'inspect', image], 30_000)).code === 0) return true;
  return (await run(runtime, ['pull', image], 10 * 60_000)).code === 0;
}

/** Stops a step's container; a container that is already gone is fine. */
export function killContainer(runtime: string, name: string): void {
  void run(runtime, ['kill', name], 30_000);
}
