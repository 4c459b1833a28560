/**
 * Attempt markers (decision 182). A process group is not a wall: a shell tool that runs in a
 * session of its own (`setsid`, a daemonizing server, Claude Code's Bash tool) leaves the group,
 * and a signal to the group no longer reaches it. What it cannot leave is the environment it was
 * started with, so every process svc starts for an attempt or a chat turn carries
 * `SVC_PROC_MARK=<data-dir key>.<owner>.<nonce>`, and its descendants inherit it. Termination
 * signals every live process carrying the marker (found through /proc/<pid>/environ), and checks
 * again after the kill until none is left; recovery after a crash does the same for the attempts
 * it closes. A process that deliberately clears its environment escapes; nothing else does.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';

export const MARK_VAR = 'SVC_PROC_MARK';

/** The marker prefix of one data directory: processes of other daemons never match. */
export function procMarkPrefix(dataDir: string): string {
  let real = dataDir;
  try {
    real = realpathSync(dataDir);
  } catch {}
  return `svc${createHash('sha256').update(real).digest('hex').slice(0, 12)}`;
}

/** Reads a process's marker, or null (gone, a zombie, not ours to read, or unmarked). */
function markOf(pid: number): string | null {
  let env: Buffer;
  try {
    env = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return null;
  }
  const key = Buffer.from(`${MARK_VAR}=`);
  let at = 0;
  while (at < env.length) {
    const end = env.indexOf(0, at);
    const stop = end < 0 ? env.length : end;
    if (env.subarray(at, at + key.length).equals(key))
      return env.subarray(at + key.length, stop).toString();
    at = stop + 1;
  }
  return null;
}

/** Live processes whose marker equals `mark`, or starts with it when it ends with a dot. */
export function markedPids(mark: string): number[] {
  if (process.platform !== 'linux' || mark === '') return [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const prefix = mark.endsWith('.');
  const out: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
    const found = markOf(pid);
    if (found !== null && (prefix ? found.startsWith(mark) : found === mark)) out.push(pid);
  }
  return out;
}

/** Signals every process carrying `mark` once; returns their pids. */
export function signalMarked(mark: string, sig: NodeJS.Signals): number[] {
  const pids = markedPids(mark);
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {}
  }
  return pids;
}

/**
 * SIGKILLs every process carrying `mark`, then looks again (a process may have forked between the
 * look and the kill) until none is left or `rounds` looks have passed. Returns every pid killed.
 */
export function killMarked(mark: string, rounds = 20): number[] {
  const killed = new Set<number>();
  for (let i = 0; i < rounds; i++) {
    const pids = signalMarked(mark, 'SIGKILL');
    if (pids.length === 0) break;
    for (const pid of pids) killed.add(pid);
  }
  return [...killed];
}
