// Issue 17 hold 5 (decision 189): branch names are judged in TypeScript with exactly
// `git check-ref-format --branch` semantics, so no request spawns git to check one. fast-check
// generates names from the characters and fragments git's rules turn on (".", "/", "@{", ".lock",
// "HEAD", control characters, the forbidden punctuation, non-ASCII), and git itself answers for
// every one, in a real repository. svc's own extra rules (`refs/…`, a bare `@`) are checked apart.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { branchNameProblem, gitBranchNameProblem } from '../../../kernel/git/index.js';
import { tempDir } from '../../support/tmp.js';

const FRAGMENTS = [
  'a',
  'b',
  'x',
  'é',
  '🎉',
  '.',
  '..',
  '/',
  '//',
  '@',
  '@{',
  '{',
  '}',
  '-',
  '_',
  '.lock',
  'lock',
  'HEAD',
  'refs/',
  'heads/',
  ' ',
  '\t',
  '\n',
  '\u0001',
  '\u001f',
  '\u007f',
  '~',
  '^',
  ':',
  '?',
  '*',
  '[',
  ']',
  '\\',
  '#',
  '!',
  '$',
];
// Plain fragments weigh more, so a fair share of the names are ones git takes: a name of
// fragments drawn evenly is almost always refused, and the comparison would test one verdict.
const PLAIN = ['a', 'b', 'x', 'é', '🎉', '_', '-', '/'];
const fragment = fc.oneof(
  { arbitrary: fc.constantFrom(...PLAIN), weight: 3 },
  { arbitrary: fc.constantFrom(...FRAGMENTS), weight: 2 },
);
const name = fc.array(fragment, { maxLength: 6 }).map((xs) => xs.join(''));

/**
 * git's verdict on each name, from one shell loop over a NUL-separated file (a process per name
 * spawned from here costs far more), run inside a fresh repository as svc's own checks would be.
 * A NUL cannot be passed to git at all; the generated names hold none.
 */
function gitVerdicts(names: string[]): boolean[] {
  const dir = tempDir();
  spawnSync('git', ['init', '-q', dir]);
  const file = join(dir, 'names');
  writeFileSync(file, names.map((n) => `${n}\0`).join(''));
  const out = spawnSync(
    'bash',
    [
      '-c',
      'while IFS= read -r -d "" n; do if git check-ref-format --branch "$n" >/dev/null 2>&1; then echo 1; else echo 0; fi; done < names',
    ],
    { cwd: dir, encoding: 'utf8' },
  ).stdout;
  return out
    .trim()
    .split('\n')
    .map((l) => l === '1');
}

describe('branch names against git check-ref-format --branch', () => {
  it('agree with git on every generated name', () => {
    const names = fc.sample(name, { numRuns: 200, seed: 20261127 });
    names.push('@', 'HEAD', 'head', '-x', 'x-', 'refs/heads/main', '/x', 'x/', 'a.', '.a');
    const verdicts = gitVerdicts(names);
    expect(verdicts).toHaveLength(names.length);
    const mismatches = names
      .map((n, i) => ({ n, git: verdicts[i], ours: gitBranchNameProblem(n) === null }))
      .filter((m) => m.git !== m.ours);
    expect(mismatches).toEqual([]);
    // The sample is only as good as its mix: both verdicts occur often.
    expect(verdicts.filter(Boolean).length).toBeGreaterThan(25);
    expect(verdicts.filter((v) => !v).length).toBeGreaterThan(25);
  }, 120_000);

  it('adds svc rules on top: no refs/ prefix, no bare @, no lone surrogate', () => {
    expect(gitBranchNameProblem('refs/heads/main')).toBeNull();
    expect(branchNameProblem('refs/heads/main')).toMatch(/starts with "refs\/"/);
    expect(gitBranchNameProblem('@')).toBeNull();
    expect(branchNameProblem('@')).toMatch(/"@"/);
    expect(branchNameProblem('a\ud800b')).toMatch(/lone surrogate/);
    for (const bad of ['HEAD', '/x', 'a\u0000b', 'x/', 'a..b', 'a@{1}', 'x.lock'])
      expect(branchNameProblem(bad), bad).not.toBeNull();
    for (const good of ['svc/1-fix', 'feature/x', 'é/🎉', 'a@b', 'refs', 'x/HEAD'])
      expect(branchNameProblem(good), good).toBeNull();
  });
});
