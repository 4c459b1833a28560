/**
 * Branch names judged in TypeScript, with no git process per request and inside transactions where
 * none may be spawned (decision 189). `gitBranchNameProblem` is exactly `git check-ref-format
 * --branch` (git's `strbuf_check_branch_ref`: no leading `-`, not `HEAD`, then `refs/heads/<name>`
 * through `check_refname_format`); a test compares it with git's own answers over generated
 * names. `branchNameProblem` adds svc's rules on top: names git would take but that mislead.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: git refuses control characters in refs
const BAD_CHARS = /[\u0000-\u0020\u007f~^:?*[\\]/;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `git check-ref-format --branch <name>` refuses `name` (run in a repository), or null. */
export function gitBranchNameProblem(name: string): string | null {
  if (name === '') return 'is empty';
  if (name.startsWith('-')) return 'starts with "-"';
  if (name === 'HEAD') return 'is "HEAD"';
  // check_refname_format("refs/heads/" + name): the prefix's own components are fine, so only
  // the name's components, characters and end are judged.
  if (BAD_CHARS.test(name)) return 'contains a space, a control character or one of ~ ^ : ? * [ \\';
  if (name.includes('..')) return 'contains ".."';
  if (name.includes('@{')) return 'contains "@{"';
  for (const part of name.split('/')) {
    if (part === '') return 'has an empty component (a leading, trailing or doubled "/")';
    if (part.startsWith('.')) return 'has a component starting with "."';
    if (part.endsWith('.lock')) return 'has a component ending with ".lock"';
  }
  if (name.endsWith('.')) return 'ends with "."';
  return null;
}

/**
 * Why svc refuses `name` as a branch: git's rules, then names git takes but that would mislead —
 * `refs/…` (git would make `refs/heads/refs/…`, and later commands read it as the full ref),
 * a bare `@` (HEAD in revision syntax), and text that is not well-formed Unicode (git would be
 * given other bytes than the name stored).
 */
export function branchNameProblem(name: string): string | null {
  const git = gitBranchNameProblem(name);
  if (git) return git;
  if (name === '@') return 'is "@"';
  if (name.startsWith('refs/')) return 'starts with "refs/" (give the branch name, not the ref)';
  if (LONE_SURROGATE.test(name)) return 'is not well-formed Unicode (a lone surrogate)';
  return null;
}
