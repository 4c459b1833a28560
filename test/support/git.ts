/**
 * `gitRepo()`: real git repositories in temp dirs, with a fixed identity so commits work on a
 * fresh CI machine without global git config.
 */
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import { tempDir } from './tmp.js';

export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'svc test',
  GIT_AUTHOR_EMAIL: 'test@svc.invalid',
  GIT_COMMITTER_NAME: 'svc test',
  GIT_COMMITTER_EMAIL: 'test@svc.invalid',
};

// Worktrees created by the daemon commit too (agent fakes, merges): give every git the identity.
Object.assign(process.env, GIT_IDENTITY);

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...GIT_IDENTITY },
  }).trim();
}

/**
 * The commit HEAD names, read from the repository's files as git would resolve them (a process
 * per commit had been a sixth of a test repository's setup); git's own answer when the branch is
 * not a loose ref (packed, or `.git` not a folder).
 */
function headOf(path: string): string {
  try {
    const head = readFileSync(join(path, '.git', 'HEAD'), 'utf8').trim();
    const hash = head.startsWith('ref: ')
      ? readFileSync(join(path, '.git', head.slice(5)), 'utf8').trim()
      : head;
    if (/^[0-9a-f]{40}$/.test(hash)) return hash;
  } catch {}
  return git(path, 'rev-parse', 'HEAD');
}

export interface Repo {
  path: string;
  git(...args: string[]): string;
  write(file: string, content: string): void;
  commit(message: string, files?: Record<string, string>): string;
}

const DEFAULT_FILES = { 'README.md': '# test repo\n' };

/** A new repository at `path` on `branch`, with the test identity in its config and no commit. */
function initAt(path: string, branch: string): void {
  mkdirSync(path, { recursive: true });
  git(path, 'init', '-q', '-b', branch);
  // Written into the fresh repository's config, as `git config` would: a git process each had
  // been a third of every test repository's setup.
  appendFileSync(
    join(path, '.git', 'config'),
    `[user]\n\tname = ${GIT_IDENTITY.GIT_AUTHOR_NAME}\n\temail = ${GIT_IDENTITY.GIT_AUTHOR_EMAIL}\n[commit]\n\tgpgsign = false\n`,
  );
}

/**
 * Per test process and branch name: a repository holding the default first commit, made by git
 * once and copied for every `gitRepo()` that asks for nothing else. Three git processes a
 * repository (init, add, commit) were most of a test project's setup; the copy is a real
 * repository all the same (its commit is shared by the copies of one process).
 */
const templates = new Map<string, string>();

/** Removes the templates; the next `gitRepo()` makes a new one. */
function removeTemplates(): void {
  for (const dir of templates.values()) rmSync(dir, { recursive: true, force: true });
  templates.clear();
}

// Gone with the test file (its worker ends without an `exit` event, so that is not enough). A
// module imported while a test runs cannot add a hook; its templates go when the process exits.
try {
  afterAll(removeTemplates);
} catch {}
process.once('exit', removeTemplates);

function templateFor(branch: string): string {
  const known = templates.get(branch);
  if (known) return known;
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'svc-repo-template-')));
  initAt(dir, branch);
  for (const [file, content] of Object.entries(DEFAULT_FILES))
    writeFileSync(join(dir, file), content);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  templates.set(branch, dir);
  return dir;
}

export function gitRepo(
  opts: { branch?: string; files?: Record<string, string>; dir?: string } = {},
): Repo {
  // The temp folder itself is the repository, so every repo has a unique folder name (project names derive from it).
  const path = opts.dir ?? tempDir('svc-repo-');
  const branch = opts.branch ?? 'main';
  const copied = opts.dir === undefined && opts.files === undefined;
  if (copied) cpSync(templateFor(branch), path, { recursive: true });
  else initAt(path, branch);
  const repo: Repo = {
    path,
    git: (...args) => git(path, ...args),
    write: (file, content) => {
      mkdirSync(dirname(join(path, file)), { recursive: true });
      writeFileSync(join(path, file), content);
    },
    commit: (message, files = {}) => {
      for (const [f, c] of Object.entries(files)) repo.write(f, c);
      git(path, 'add', '-A');
      git(path, 'commit', '-q', '--allow-empty', '-m', message);
      return headOf(path);
    },
  };
  if (!copied) repo.commit('initial', opts.files ?? DEFAULT_FILES);
  return repo;
}

/** A bare repository to act as `origin`, with `repo` pushing its default branch and tracking it. */
export function bareRemote(repo: Repo, branch = 'main'): string {
  const bare = join(tempDir('svc-remote-'), 'origin.git');
  git(dirname(bare), 'init', '-q', '--bare', '-b', branch, bare);
  repo.git('remote', 'add', 'origin', bare);
  repo.git('push', '-q', '-u', 'origin', branch);
  return bare;
}
