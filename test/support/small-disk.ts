/**
 * A real small file system for disk-full tests (issue 17): a tmpfs mounted on a temp directory, a
 * filler file that takes its room, and a remount that gives room back without deleting anything.
 * Mounting needs root (CI runs as root); elsewhere `mountSmallDisk` says why it cannot.
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  rmSync,
  statfsSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

export interface SmallDisk {
  dir: string;
  /** Bytes free now. */
  free(): number;
  /** Takes the room that is left (all of it, or all but `leave` bytes) with a filler file. */
  fill(leave?: number): void;
  /** Deletes the filler. */
  unfill(): void;
  /** Remounts at `mb` megabytes: room returns and nothing is deleted. */
  grow(mb: number): void;
}

/** Mounts a tmpfs of `mb` megabytes, unmounted when the test ends; a string says why it cannot. */
export function mountSmallDisk(mb: number): SmallDisk | string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mb}m,mode=0700`, 'tmpfs', dir], {
      stdio: 'pipe',
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const why = (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
    return `cannot mount a tmpfs here (root is needed): ${why}`;
  }
  const filler = join(dir, 'filler');
  onTestFinished(() => {
    // Lazily: a kernel still closing its files does not keep the mount (or the test) alive.
    try {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    } catch {}
  });
  const free = () => {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  };
  return {
    dir,
    free,
    fill: (leave = 0) => {
      const fd = openSync(filler, 'a', 0o600);
      const chunk = Buffer.alloc(256 * 1024, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
      // Byte-sized tails too, so nothing is left but what `leave` asks for.
      try {
        for (;;) writeSync(fd, Buffer.alloc(512, 1));
      } catch {}
      if (leave > 0) ftruncateSync(fd, Math.max(0, statSync(filler).size - leave));
      closeSync(fd);
    },
    unfill: () => rmSync(filler, { force: true }),
    grow: (size) => {
      execFileSync('mount', ['-o', `remount,size=${size}m`, dir], { stdio: 'pipe' });
    },
  };
}
