/**
 * A branch's configured upstream read from the repository's own `.git/config`, without a git
 * process, when the files answer plainly — the way `branchTip` reads refs (issue 22 point 2,
 * decision 234). Admission asked `git for-each-ref` for it once per task, and every git process
 * forks the daemon.
 *
 * "Plainly" is narrow on purpose; anything else returns undefined and the caller asks git:
 * - git reads `branch.<name>.*` from the system, global and repository files, and from
 *   `GIT_CONFIG_*` variables; the answer comes from `.git/config` alone only while no other file
 *   git would read has a `[branch` section or an include, and no such variable is set;
 * - the repository's file has no include, no `worktreeConfig`, and the branch's section is made
 *   of simple `key = value` lines (no quotes, escapes or continuations in it), with at most one
 *   `remote` and one `merge`.
 * Files are re-read only when their size, mtime or inode change.
 */
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface ConfigUpstream {
  remote: string;
  /** The ref on the remote, e.g. `refs/heads/main`. */
  ref: string;
}

interface Parsed {
  stamp: string;
  /** Section headers and key lines, or null when the file is not plain enough to read. */
  text: string | null;
}

const files = new Map<string, Parsed>();

function stampOf(file: string): string | null {
  try {
    // Usually one of the files git would read is missing (~/.gitconfig, the XDG file): answered
    // without an exception, as a failed stat would throw on every admission.
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st) return 'absent';
    return `${st.size}:${st.mtimeMs}:${st.ino}`;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'absent' : null;
  }
}

/** The file's text while its stamp holds ('' when absent); null when it cannot be read. */
function readCached(file: string): string | null {
  const stamp = stampOf(file);
  if (stamp === null) return null;
  const hit = files.get(file);
  if (hit?.stamp === stamp) return hit.text;
  let text: string | null = '';
  if (stamp !== 'absent') {
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      text = null;
    }
  }
  if (files.size > 1000) files.clear();
  files.set(file, { stamp, text });
  return text;
}

const INCLUDE = /^\s*\[\s*include(if)?\b/im;

/** True when a file git also reads could change a branch's upstream or pull in another file. */
function otherFilesMatter(): boolean {
  const env = process.env;
  if (env.GIT_CONFIG_COUNT || env.GIT_CONFIG_PARAMETERS || env.GIT_CONFIG) return true;
  const global = env.GIT_CONFIG_GLOBAL;
  const xdg = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  const others = [
    global ?? join(homedir(), '.gitconfig'),
    ...(global ? [] : [join(xdg, 'git', 'config')]),
    ...(env.GIT_CONFIG_NOSYSTEM ? [] : [env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig']),
  ];
  for (const file of others) {
    const text = readCached(file);
    if (text === null || INCLUDE.test(text) || /^\s*\[\s*branch\b/im.test(text)) return true;
  }
  return false;
}

const SECTION = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(?:[#;].*)?$/;
const ENTRY = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*=\s*([^"\\#;\s][^"\\#;]*?)\s*(?:[#;].*)?$/;

/**
 * The upstream `git for-each-ref --format=%(upstream:remotename) %(upstream:remoteref)` names for
 * `refs/heads/<branch>` of `repo`: null when none is configured (or the remote is `.`), undefined
 * when only git can tell.
 */
export function configUpstream(repo: string, branch: string): ConfigUpstream | null | undefined {
  if (branch.includes('"') || otherFilesMatter()) return undefined;
  const file = join(repo, '.git', 'config');
  // A repository always has this file; without it (a `.git` file, say) git decides.
  if (stampOf(file) === 'absent') return undefined;
  const text = readCached(file);
  if (text === null || INCLUDE.test(text) || /worktreeconfig/i.test(text)) return undefined;
  let inBranch = false;
  const remotes: string[] = [];
  const merges: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (/^\s*(?:[#;].*)?$/.test(line)) continue;
    if (/^\s*\[/.test(line)) {
      const s = SECTION.exec(line);
      if (!s) {
        // A header this reader does not know (`[branch.main]`, escapes): git decides.
        if (/^\s*\[\s*branch\b/i.test(line)) return undefined;
        inBranch = false;
        continue;
      }
      // An escaped subsection name is spelled differently from the name it stands for; the old
      // `[branch.name]` spelling folds case.
      if ((s[2] ?? '').includes('\\') || /^branch\./i.test(s[1] as string)) return undefined;
      inBranch = (s[1] as string).toLowerCase() === 'branch' && s[2] === branch;
      continue;
    }
    if (!inBranch) continue;
    const e = ENTRY.exec(line);
    if (!e) return undefined;
    const key = (e[1] as string).toLowerCase();
    if (key === 'remote') remotes.push(e[2] as string);
    else if (key === 'merge') merges.push(e[2] as string);
  }
  if (remotes.length > 1 || merges.length > 1) return undefined;
  const remote = remotes[0];
  const ref = merges[0];
  return remote && ref && remote !== '.' ? { remote, ref } : null;
}
