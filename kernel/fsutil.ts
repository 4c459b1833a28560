/** Small file helpers shared across the kernel: atomic writes with explicit modes. */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `data` to `path` through a temporary sibling and a rename, so a reader (or a crash)
 * sees either the old file or the whole new one, never half of it.
 */
export function writeFileAtomic(path: string, data: string | Buffer, mode = 0o600): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', mode);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {}
    throw err;
  }
  closeSync(fd);
  if (process.platform !== 'win32') chmodSync(tmp, mode);
  renameSync(tmp, path);
}
