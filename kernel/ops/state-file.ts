/**
 * Small JSON state files in {data_dir} (backup-state.json, update-check.json): facts about this
 * machine's schedule that must survive a restart and be readable while the daemon is down, and that
 * must not travel inside a backup (which is why they are not database rows).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { z } from 'zod';
import { writeFileAtomic } from '../fsutil.js';

/** The file's content when it exists and matches `schema`; otherwise null (a damaged file is ignored). */
export function readState<S extends z.ZodType>(path: string, schema: S): z.infer<S> | null {
  try {
    if (!existsSync(path)) return null;
    const r = schema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

export function writeState(path: string, value: unknown): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, 0o600);
}
