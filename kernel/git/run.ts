/**
 * Runs git. Every call passes arguments as argv (never a shell line), disables prompts and pagers,
 * and pins the locale so messages can be matched. A failure is a GitError carrying git's own
 * message, which callers surface (e.g. in an archive's `branch.error`).
 */
import { execFile } from 'node:child_process';

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

/** Runs git and resolves with its output whatever the exit status. */
export function gitRaw(
  cwd: string,
  args: string[],
  opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        cwd,
        env: { ...process.env, ...GIT_ENV, ...opts.env },
        maxBuffer: 64 * 1024 * 1024,
        timeout: opts.timeoutMs ?? 0,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (err && typeof (err as NodeJS.ErrnoException).code === 'string') {
          reject(err);
          return;
        }
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : 1
          : 0;
        resolve({ stdout, stderr, code });
      },
    );
  });
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
