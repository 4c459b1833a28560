/**
 * Whether a path lies inside a directory, for the "is this installation's" checks of decision 194.
 * Judged as written first, then on real paths: a data directory reached through a symbolic link
 * (a moved home, a mounted volume) is still the same directory whichever spelling a row holds. A
 * path that does not exist (a worktree gone from disk, a run's transcript never written) is judged
 * by its nearest existing ancestor's real path plus the rest as written.
 */
import { realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

function realOrAncestor(path: string): string {
  let at = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(at), relative(at, resolve(path)));
    } catch {
      const up = dirname(at);
      if (up === at) return resolve(path);
      at = up;
    }
  }
}

export function isWithin(path: string, dir: string): boolean {
  if (resolve(path).startsWith(`${resolve(dir)}${sep}`)) return true;
  return realOrAncestor(path).startsWith(`${realOrAncestor(dir)}${sep}`);
}
