/**
 * Sizes of files, trees and the disk under them. Tree walks are asynchronous so a doctor report over
 * large worktrees (node_modules and friends) never stalls the API; symbolic links are counted as
 * links, never followed, so a link to `/` costs nothing.
 */
import { lstatSync, statfsSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Size of one file; 0 when it is missing (a missing WAL sidecar counts zero, SPEC §2.9). */
export function fileBytes(path: string): number {
  try {
    return lstatSync(path).size;
  } catch {
    return 0;
  }
}

/** Bytes of every file below `path` (or of `path` itself when it is a file); 0 when missing. */
export async function treeBytes(path: string): Promise<number> {
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.size;
  let names: string[];
  try {
    names = await readdir(path);
  } catch {
    return 0;
  }
  let total = 0;
  // Siblings in small batches: parallel enough to be quick, bounded so a huge tree cannot exhaust
  // file descriptors.
  for (let i = 0; i < names.length; i += 16) {
    const sizes = await Promise.all(names.slice(i, i + 16).map((n) => treeBytes(join(path, n))));
    for (const s of sizes) total += s;
  }
  return total;
}

export interface DiskUsage {
  free_bytes: number | null;
  total_bytes: number | null;
  error?: string;
}

/** Free space for an unprivileged writer and the size of the filesystem holding `path`. */
export function diskUsage(path: string): DiskUsage {
  try {
    const s = statfsSync(path);
    return { free_bytes: s.bavail * s.bsize, total_bytes: s.blocks * s.bsize };
  } catch (err) {
    return { free_bytes: null, total_bytes: null, error: (err as Error).message };
  }
}

/** `0644`-style text of a mode's permission bits. */
export function modeText(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}
