/**
 * Fault points for reliability tests (issue 11), injected from outside the code under test: the
 * kernel's own `writeSync` and `writev` are replaced for file descriptors whose path matches, so the
 * real write path runs up to the system call and receives the error a full disk gives. Unprivileged, and
 * independent of running as root (where permission bits would not stop a write).
 */
import fs, { readlinkSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { onTestFinished } from 'vitest';

/**
 * Replaces `fs[name]` until the test ends: the kernel imports it as an ES binding, which
 * `syncBuiltinESMExports` points at the replacement, and the original is put back when the test
 * finishes. `make` is given the original to call through to; it is returned too.
 */
export function swapFs<K extends keyof typeof fs>(
  name: K,
  make: (original: (typeof fs)[K]) => unknown,
): (typeof fs)[K] {
  // Some members are typed read-only (statSync, a const of overloads); the module's own
  // properties are writable.
  const writable = fs as Record<K, unknown>;
  const original = fs[name];
  writable[name] = make(original);
  syncBuiltinESMExports();
  onTestFinished(() => {
    writable[name] = original;
    syncBuiltinESMExports();
  });
  return original;
}

/** The path a file descriptor of this process is open on ('' when it cannot be told). */
export function pathOfFd(fd: number): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return '';
  }
}

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
  let passed = 0;
  let refused = 0;
  let healed = false;
  const faulty = (fd: unknown) =>
    !healed && typeof fd === 'number' && pathOfFd(fd).startsWith(prefix);
  const refusal = () => {
    refused++;
    const code = opts.code ?? 'ENOSPC';
    return Object.assign(new Error(`${code}: no space left on device, write`), {
      code,
      errno: -28,
      syscall: 'write',
    });
  };
  swapFs(
    'writeSync',
    (original) =>
      (fd: number, buffer: NodeJS.ArrayBufferView | string, ...rest: unknown[]) => {
        if (faulty(fd)) {
          const size = typeof buffer === 'string' ? Buffer.byteLength(buffer) : buffer.byteLength;
          if (passed + size > (opts.allow ?? 0)) throw refusal();
          passed += size;
        }
        return (original as (...a: unknown[]) => number)(fd, buffer, ...rest);
      },
  );
  // Transcripts write off the event loop, many lines at once (decision 232): the same fault for
  // `fs.writev`, as a full disk answers a batch — what fits is written (a short write), the next
  // write fails.
  swapFs(
    'writev',
    (original) =>
      (fd: number, buffers: NodeJS.ArrayBufferView[], ...rest: unknown[]) => {
        const writev = original as (...a: unknown[]) => void;
        const cb = rest.at(-1) as (err: NodeJS.ErrnoException | null, written?: number) => void;
        if (faulty(fd)) {
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
            writev(fd, fits, ...rest);
            return;
          }
          if (size > room) {
            const err = refusal();
            if (opts.answerAfterMs) setTimeout(() => cb(err), opts.answerAfterMs);
            else process.nextTick(() => cb(err));
            return;
          }
          passed += size;
        }
        writev(fd, buffers, ...rest);
      },
  );
  return {
    get refused() {
      return refused;
    },
    heal: () => {
      healed = true;
    },
  };
}
