import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { branchNameProblem, branchSlug, builtinBranch } from '../../../kernel/engine/refname.js';

function gitAccepts(name: string): boolean {
  try {
    execFileSync('git', ['check-ref-format', '--branch', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('branch names', () => {
  it.each([
    'svc/1-fix',
    'feature/x',
    'a',
    'with.dot',
    'under_score',
    'a/b/c',
    'UPPER',
    'x-1.2',
    '',
    '-lead',
    'a..b',
    'a//b',
    'end/',
    'end.',
    'a.lock',
    'x/.hidden',
    'sp ace',
    'til~de',
    'ca^ret',
    'co:lon',
    'que?ry',
    'st*ar',
    'br[acket',
    'back\\slash',
    'at@{x',
    'tab\tx',
  ])('agrees with git check-ref-format on %j', (name) => {
    expect(branchNameProblem(name) === null).toBe(gitAccepts(name));
  });

  it('builds the built-in name from the title', () => {
    expect(branchSlug('Fix the Login Bug!')).toBe('fix-the-login-bug');
    expect(builtinBranch(7, 'Fix the Login Bug!')).toBe('svc/7-fix-the-login-bug');
    expect(builtinBranch(8, '!!!')).toBe('svc/8');
    expect(branchSlug('x'.repeat(39) + ' y z')).toBe('x'.repeat(39));
    expect(branchSlug('Ünïcode & émojis 🎉 ok')).toBe('n-code-mojis-ok');
  });
});
