/**
 * What a starting spawner removes from the temp dir (decision 248): the directories of spawners
 * that died with nobody left to clean up — SIGKILLed after their daemon was gone, or killed with
 * it. Node built-ins only: the spawner imports this.
 *
 * Only a directory that is surely dead goes: named `svc-spawner-*`, owned by this user, holding
 * nothing but a socket named `s`, unchanged for a minute (a live spawner touches its directory,
 * and a starting one binds its socket within milliseconds of making it), and whose socket refuses
 * connections or is not there. A live spawner of another daemon accepts, so it stays.
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';

const PREFIX = 'svc-spawner-';

export async function sweepDeadSpawners(
  parent: string,
  own: string,
  minAgeMs = 60_000,
): Promise<string[]> {
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = join(parent, name);
    if (dir === own) continue;
    try {
      const st = await lstat(dir);
      if (!st.isDirectory() || st.uid !== uid || Date.now() - st.mtimeMs < minAgeMs) continue;
      const inside = await readdir(dir);
      if (inside.some((n) => n !== 's')) continue;
      if (inside.length > 0 && !(await refuses(join(dir, 's')))) continue;
      await rm(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // Gone meanwhile, or not ours to judge: left as it is.
    }
  }
  return removed;
}

/** Whether nothing listens on the socket at `path` (its process is gone). */
function refuses(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}
