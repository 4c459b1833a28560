/**
 * Fault points for reliability tests (issue 11), injected from outside the code under test: the
 * kernel's own `writeSync` and `writev` are replaced for file descriptors whose path matches, so the
 * real write path runs up to the system call and receives the error a full disk gives. Unprivileged, and
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
 * left on device"), once `allow` bytes have gone through. `answerAfterMs`: a batch write's refusal
 * comes that late, as from a slow disk. Restored when the test ends.
 */
export function failWrites(
  prefix: string,
  opts: { code?: string; allow?: number; answerAfterMs?: number } = {},
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
  // Transcripts write off the event loop, many lines at once (decision 232): the same fault for
  // `fs.writev`, as a full disk answers a batch — what fits is written (a short write), the next
  // write fails.
  const originalWritev = fs.writev;
  const patchedWritev = ((fd: number, buffers: NodeJS.ArrayBufferView[], ...rest: unknown[]) => {
    const cb = rest.at(-1) as (err: NodeJS.ErrnoException | null, written?: number) => void;
    if (!healed && typeof fd === 'number' && pathOf(fd).startsWith(prefix)) {
      const size = buffers.reduce((n, b) => n + b.byteLength, 0);
      const room = (opts.allow ?? 0) - passed;
      if (size > room && room > 0) {
        const fits: Buffer[] = [];
        let left = room;
        for (const b of buffers) {
          const bytes = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
          fits.push(bytes.subarray(0, Math.min(left, bytes.length)));
          left -= Math.min(left, bytes.length);
          if (left === 0) break;
        }
        passed += room;
        (originalWritev as (...a: unknown[]) => void)(fd, fits, ...rest);
        return;
      }
      if (size > room) {
        refused++;
        const code = opts.code ?? 'ENOSPC';
        const err = Object.assign(new Error(`${code}: no space left on device, write`), {
          code,
          errno: -28,
          syscall: 'write',
        });
        if (opts.answerAfterMs) setTimeout(() => cb(err), opts.answerAfterMs);
        else process.nextTick(() => cb(err));
        return;
      }
      passed += size;
    }
    (originalWritev as (...a: unknown[]) => void)(fd, buffers, ...rest);
  }) as typeof fs.writev;
  fs.writeSync = patched;
  fs.writev = patchedWritev;
  syncBuiltinESMExports();
  const restore = () => {
    fs.writeSync = original;
    fs.writev = originalWritev;
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
