/**
 * Runs git. Every call passes arguments as argv (never a shell line), disables prompts and pagers,
 * and pins the locale so messages can be matched. A failure is a GitError carrying git's own
 * message, which callers surface (e.g. in an archive's `branch.error`).
 */
import { collect, inheritedEnv } from '../launch/index.js';

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(
      stderr.trim().split('\n').slice(-3).join(' ') || `git ${args[0]} failed with status ${code}`,
    );
    this.name = 'GitError';
  }
}

/** The environment every git call runs with (no prompts, no pager, no optional locks, C locale). */
export const GIT_ENV: NodeJS.ProcessEnv = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  GIT_OPTIONAL_LOCKS: '0',
  LC_ALL: 'C',
  LANG: 'C',
};

export interface GitResult {
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * Runs git and resolves with its output whatever the exit status (a timeout or a signal reads as
 * status 1). Rejects when git cannot start, or prints more than 64 MiB (git is then stopped).
 * Started through `launch`, like every program svc runs (decision 247).
 */
export async function gitRaw(
  cwd: string,
  args: string[],
  opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<GitResult> {
  const r = await collect('git', args, {
    cwd,
    env: { ...inheritedEnv(), ...GIT_ENV, ...opts.env },
    ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
  });
  if (r.error) throw r.error;
  return { stdout: r.stdout, stderr: r.stderr, code: r.code ?? 1 };
}

/** Runs git and resolves with stdout, or rejects with a GitError. */
export async function git(
  cwd: string,
  args: string[],
  opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  const r = await gitRaw(cwd, args, opts);
  if (r.code !== 0) throw new GitError(args, r.code, r.stderr || r.stdout);
  return r.stdout;
}
