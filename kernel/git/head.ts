/**
 * The commit a worktree's HEAD names, read from its files when they answer plainly. The engine
 * records it before and after every step attempt (decision 171); a git process per read would
 * fork the daemon twice per attempt on the engine's hot path (issue 11), so the common case — HEAD
 * a symbolic ref to a branch whose tip the ref files name — costs two small file reads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { branchTip, headCommit } from './repo.js';
import { worktreeGitDir } from './worktree.js';

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const BRANCH_REF = /^ref: refs\/heads\/(.+)$/;

/**
 * The commit `worktree`'s HEAD is at; null when it cannot be told (no worktree, an unborn branch,
 * git failing). `repo` is the main repository, whose ref files the worktree shares.
 */
export async function worktreeHead(worktree: string, repo: string): Promise<string | null> {
  const dir = worktreeGitDir(worktree);
  if (!dir) return null;
  let head: string;
  try {
    head = readFileSync(join(dir, 'HEAD'), 'utf8').trim();
  } catch {
    return headCommit(worktree);
  }
  if (OBJECT_ID.test(head)) return head;
  const branch = BRANCH_REF.exec(head)?.[1];
  if (branch) {
    try {
      return await branchTip(repo, branch);
    } catch {
      return headCommit(worktree);
    }
  }
  return headCommit(worktree);
}
