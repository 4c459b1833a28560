/**
 * The daemon's own environment as a plain object, for the programs it starts (decision 257).
 * Reading `process.env` whole costs ~0.2 ms — each name goes through the C library's environment
 * under a lock — and svc did it several times a task: git's environment on every git call, a
 * step's inherit-all policy. The copy is kept until `process.env` changes, which is seen by
 * wrapping it once in a Proxy that counts writes and deletions and passes everything through (so
 * the real environment, which native code and `child_process` read, changes as before). If some
 * code replaces `process.env` with another object, every call reads it whole again.
 */
let wrapped: NodeJS.ProcessEnv | null = null;
let version = 0;
let copy: { version: number; env: Readonly<Record<string, string>> } | null = null;

function wrap(): NodeJS.ProcessEnv {
  const real = process.env;
  const changed = <T>(result: T): T => {
    version++;
    return result;
  };
  const proxy = new Proxy(real, {
    set: (t, k, v) => changed(Reflect.set(t, k, v)),
    deleteProperty: (t, k) => changed(Reflect.deleteProperty(t, k)),
    defineProperty: (t, k, d) => changed(Reflect.defineProperty(t, k, d)),
  });
  process.env = proxy;
  return proxy;
}

function readWhole(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/** `process.env` as a plain object, the same object while the environment does not change. */
export function inheritedEnv(): Readonly<Record<string, string>> {
  wrapped ??= wrap();
  if (process.env !== wrapped) return readWhole(process.env);
  if (copy?.version !== version) copy = { version, env: Object.freeze(readWhole(process.env)) };
  return copy.env;
}
