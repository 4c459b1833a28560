/**
 * Owner-only modes under the data and config directories (issue 17 point 10, decision 184). A
 * user's `cp -r`, a restore, an editor or a umask can loosen what svc wrote owner-only; the
 * daemon tightens it again at every start and `svc doctor` reports what is loose now (a warning,
 * never a problem, SPEC §2.9).
 *
 * - Everything under the data directory (the token, the database, logs, transcripts, backups)
 *   and the secrets of the config directory (`config.yaml`, `triggers/`, which hold ingress
 *   secrets) may carry no group or other bit: directories 0700, files 0600 at most.
 * - Everything else under the config directory (`workflows/`, which svc writes 0644 like a
 *   project's own workflow files, and whatever the user keeps there) may not be group- or
 *   world-writable.
 * - `worktrees/` itself is checked, never what is inside: those are the user's checkouts, whose
 *   modes (executables, scripts) are the repository's business.
 * Symbolic links are never followed (a chmod would change their target).
 */
import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { Paths } from './paths.js';

export interface LooseMode {
  path: string;
  /** The permission bits found. */
  mode: number;
  /** The bits that are too loose (set in `mode` and not allowed). */
  loose: number;
}

/** At most this many entries are reported or tightened per start (a pathological tree). */
const MAX_ENTRIES = 10_000;

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** The group/other bits a path may not carry. */
function forbidden(path: string, paths: Paths): number {
  // The innermost of the two directories decides (one may live inside the other).
  const data = inside(path, paths.dataDir) ? paths.dataDir.length : -1;
  const config = inside(path, paths.configDir) ? paths.configDir.length : -1;
  if (config > data && path !== paths.configDir) {
    if (path === paths.configFile || inside(path, paths.triggersDir)) return 0o077;
    return 0o022;
  }
  return 0o077;
}

/** Every directory and regular file under the data and config directories whose mode is too loose. */
export function looseModes(paths: Paths, limit = MAX_ENTRIES): LooseMode[] {
  if (process.platform === 'win32') return [];
  const out: LooseMode[] = [];
  const seen = new Set<string>();
  const visit = (path: string, descend: boolean) => {
    if (out.length >= limit || seen.has(path)) return;
    seen.add(path);
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(path);
    } catch {
      return;
    }
    if (!st.isDirectory() && !st.isFile()) return;
    const mode = st.mode & 0o777;
    const loose = mode & forbidden(path, paths);
    if (loose !== 0) out.push({ path, mode, loose });
    if (!st.isDirectory() || !descend || path === paths.worktreesDir) return;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return;
    }
    for (const name of names) visit(join(path, name), true);
  };
  visit(paths.dataDir, true);
  visit(paths.configDir, true);
  return out;
}

/** Removes the loose bits of everything `looseModes` finds; returns what it changed. */
export function tightenModes(paths: Paths): LooseMode[] {
  const fixed: LooseMode[] = [];
  for (const entry of looseModes(paths)) {
    try {
      chmodSync(entry.path, entry.mode & ~entry.loose);
      fixed.push(entry);
    } catch {}
  }
  return fixed;
}
