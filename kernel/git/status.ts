/**
 * What a worktree holds that its branch does not (decision 204): `git status`, untracked files
 * included, summarized for a task (`worktree_changes`) and listed for a refusal (an archive of a
 * dirty worktree names the files). Read-only: GIT_OPTIONAL_LOCKS=0 keeps these off the index lock.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gitRaw } from './run.js';

export interface WorktreeChanges {
  /** Paths with changes, untracked ones included (an untracked folder counts once). */
  files: number;
  /** Lines added against HEAD, staged or not, plus the lines of untracked files. */
  additions: number;
  /** Lines deleted against HEAD, staged or not. */
  deletions: number;
  /** Untracked paths (files, or folders git lists as one). */
  untracked: number;
}

export interface StatusEntry {
  /** git's two-letter code (`M `, ` M`, `??`, `A `, `R `, …). */
  code: string;
  path: string;
}

/** `git status --porcelain` entries; null when git cannot tell (not a worktree, gone). */
export async function statusEntries(worktree: string): Promise<StatusEntry[] | null> {
  if (!existsSync(worktree)) return null;
  const r = await gitRaw(worktree, ['status', '--porcelain=v1', '-z', '--untracked-files=normal']);
  if (r.code !== 0) return null;
  const out: StatusEntry[] = [];
  const parts = r.stdout.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as string;
    if (p.length < 4) continue;
    const code = p.slice(0, 2);
    out.push({ code, path: p.slice(3) });
    // A rename or copy is followed by its source path.
    if (code[0] === 'R' || code[0] === 'C') i++;
  }
  return out;
}

/** Untracked files' lines are counted up to this much reading, so a stray dump costs little. */
const UNTRACKED_BUDGET_BYTES = 8 * 1024 * 1024;

function countLines(file: string, budget: { bytes: number }): number {
  let fd: number;
  try {
    if (!statSync(file).isFile()) return 0;
    fd = openSync(file, 'r');
  } catch {
    return 0;
  }
  try {
    const buf = Buffer.alloc(64 * 1024);
    let lines = 0;
    let last = 0x0a;
    while (budget.bytes > 0) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, budget.bytes), null);
      if (n <= 0) break;
      budget.bytes -= n;
      // A file with a NUL in its first block is binary: git counts no lines for it either.
      if (lines === 0 && buf.subarray(0, n).includes(0)) return 0;
      for (let i = 0; i < n; i++) if (buf[i] === 0x0a) lines++;
      last = buf[n - 1] as number;
    }
    return last === 0x0a ? lines : lines + 1;
  } finally {
    closeSync(fd);
  }
}

/**
 * The uncommitted state of a worktree against its HEAD: null when clean (or when git cannot
 * tell), so `worktree_changes` is present exactly when there is something to see.
 */
export async function worktreeChanges(worktree: string): Promise<WorktreeChanges | null> {
  const entries = await statusEntries(worktree);
  if (!entries || entries.length === 0) return null;
  let additions = 0;
  let deletions = 0;
  const diff = await gitRaw(worktree, ['diff', 'HEAD', '--numstat', '-z', '--no-renames']);
  if (diff.code === 0) {
    for (const rec of diff.stdout.split('\0')) {
      const m = /^(\d+|-)\t(\d+|-)\t/.exec(rec);
      if (!m) continue;
      additions += m[1] === '-' ? 0 : Number(m[1]);
      deletions += m[2] === '-' ? 0 : Number(m[2]);
    }
  }
  const untracked = entries.filter((e) => e.code === '??');
  const budget = { bytes: UNTRACKED_BUDGET_BYTES };
  for (const e of untracked)
    if (!e.path.endsWith('/')) additions += countLines(join(worktree, e.path), budget);
  return { files: entries.length, additions, deletions, untracked: untracked.length };
}

/** `3 files (+12 −4, 1 untracked)`: the summary people read. */
export function changesText(c: WorktreeChanges): string {
  const extra = c.untracked > 0 ? `, ${c.untracked} untracked` : '';
  return `${c.files} file${c.files === 1 ? '' : 's'} (+${c.additions} −${c.deletions}${extra})`;
}
