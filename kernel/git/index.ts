/**
 * git: repositories, worktrees and branches, driven through the git CLI with argv only.
 * Uses: nothing but git. Used by: projects, engine, chats, ops. Decision 012 (base refresh).
 */

export { branchNameProblem, gitBranchNameProblem } from './branch-name.js';
export {
  DIFF_LIMIT,
  type DiffFile,
  type DiffRange,
  type DiffStatus,
  diffFiles,
  diffText,
  mergeBase,
  resolveCommit,
  withUntrackedIndex,
} from './diff.js';
export { worktreeHead } from './head.js';
export {
  type BranchFacts,
  branchExists,
  branchFacts,
  branchTip,
  checkRepository,
  commitsPastBase,
  detectDefaultBranch,
  headCommit,
  isValidBranchName,
  looseBranchExists,
  type RepoCheck,
} from './repo.js';
export { GitError, type GitResult, git, gitRaw } from './run.js';
export { GitAbortedError } from './stream.js';
export {
  addWorktree,
  addWorktreeForBranch,
  type BranchDeleteResult,
  conflictedPaths,
  deleteBranchIfEmpty,
  deleteRemoteBranch,
  freshStartPoint,
  isDirty,
  knownUpstreamOf,
  operationInProgress,
  pruneWorktrees,
  type RemoteDeleteResult,
  removeLeftIndexLock,
  removeWorktree,
  restoreWorktree,
  type Upstream,
  upstreamOf,
  worktreeGitDir,
} from './worktree.js';
