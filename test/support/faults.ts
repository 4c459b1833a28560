/**
 * Fault points for reliability tests (issue 11), injected from outside the code under test: the
 * kernel's own `writeSync` is replaced for file descriptors whose path matches, so the real write
 * path runs up to the system call and receives the error a full disk gives. Unprivileged, and
 * independent of running as root (where permission bits would not stop a write).
 */
import fs, { readlinkSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { onTestFinished } from 'vitest';

export interface WriteFault {
  /** Writes refused so far. */
  readonly refused: number;
  /** Stops refusing (the disk has room again). */
  heal(): void;
}

/**
 * Makes writes to files whose real path starts with `prefix` fail with `code` (ENOSPC: "no space
 * left on device"), once `allow` bytes have gone through. Restored when the test ends.
 */
export function failWrites(
  prefix: string,
  opts: { code?: string; allow?: number } = {},
): WriteFault {
  const original = fs.writeSync;
  let passed = 0;
  let refused = 0;
  let healed = false;
  const pathOf = (fd: number): string => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return '';
    }
  };
  const patched = ((fd: number, buffer: NodeJS.ArrayBufferView | string, ...rest: unknown[]) => {
    if (!healed && typeof fd === 'number' && pathOf(fd).startsWith(prefix)) {
      const size = typeof buffer === 'string' ? Buffer.byteLength(buffer) : buffer.byteLength;
      if (passed + size > (opts.allow ?? 0)) {
        refused++;
        const code = opts.code ?? 'ENOSPC';
        throw Object.assign(new Error(`${code}: no space left on device, write`), {
          code,
          errno: -28,
          syscall: 'write',
        });
      }
      passed += size;
    }
    return (original as (...a: unknown[]) => number)(fd, buffer, ...rest);
  }) as typeof fs.writeSync;
  fs.writeSync = patched;
  syncBuiltinESMExports();
  const restore = () => {
    fs.writeSync = original;
    syncBuiltinESMExports();
  };
  try {
    onTestFinished(restore);
  } catch {}
  return {
    get refused() {
      return refused;
    },
    heal: () => {
      healed = true;
    },
  };
}
