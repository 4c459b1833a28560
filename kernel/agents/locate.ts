/**
 * Where an agent CLI lives (SPEC §2.10 `agents.<name>.path`, §2.3 `path`): the configured path when
 * one is set, else the adapter's binary name looked up on the PATH the children see (the
 * environment policy's PATH, not the daemon's own). A missing binary is availability data, never a
 * probe error. The cache key is the file the path resolves to (symlinks followed, so an upgrade
 * that re-points `node_modules/.bin/claude` is a new key) plus its mtime and size.
 */
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export interface Location {
  /** The path as found (configured, or the PATH entry joined with the name); null when missing. */
  path: string | null;
  /** Where we looked, for the `agent_unavailable` message. */
  looked: string;
  /** realpath + mtime + size; empty when missing. */
  key: string;
  /** The configured `agents.<name>.path` (empty when none is set), found or not. */
  configured: string;
  /** Why a configured path is not used: it does not exist, or is not an executable file. */
  problem: PathProblem | null;
}

export type PathProblem = 'missing' | 'not_executable';

/** Why `p` cannot be run as an agent CLI, or null when it can (an executable regular file). */
export function pathProblem(p: string): PathProblem | null {
  if (!existsSync(p)) return 'missing';
  return executable(p) ? null : 'not_executable';
}

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** On Windows a bare name may carry any PATHEXT suffix. */
function candidates(
  name: string,
  platform: NodeJS.Platform,
  env: Record<string, string>,
): string[] {
  if (platform !== 'win32' || /\.[a-z0-9]+$/i.test(name)) return [name];
  const exts = (env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter(Boolean);
  return [name, ...exts.map((e) => name + e.toLowerCase())];
}

function keyOf(path: string): string {
  try {
    const real = realpathSync(path);
    const st = statSync(real);
    return `${real}\u0000${st.mtimeMs}\u0000${st.size}`;
  } catch {
    return '';
  }
}

export function locateBinary(
  binary: string,
  configured: string,
  env: Record<string, string>,
  platform: NodeJS.Platform = process.platform,
): Location {
  if (configured !== '') {
    const problem = pathProblem(configured);
    const found = problem === null ? configured : null;
    return {
      path: found,
      looked: `agents path ${configured}`,
      key: found ? keyOf(found) : '',
      configured,
      problem,
    };
  }
  const dirs = (env.PATH ?? env.Path ?? '')
    .split(delimiter)
    .filter((d) => d !== '' && isAbsolute(d));
  for (const dir of dirs) {
    for (const name of candidates(binary, platform, env)) {
      const p = join(dir, name);
      if (executable(p))
        return { path: p, looked: `${binary} on PATH`, key: keyOf(p), configured, problem: null };
    }
  }
  return { path: null, looked: `${binary} on PATH`, key: '', configured, problem: null };
}
