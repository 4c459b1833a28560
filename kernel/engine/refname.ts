/** Branch-name rules live with git (kernel/git/branch-name.ts, decision 189); the engine's names too. */
export { branchNameProblem } from '../git/index.js';

/** The built-in slug: lowercase, runs of other characters become one dash, at most 40 characters. */
export function branchSlug(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
}

export function builtinBranch(id: number, title: string): string {
  const slug = branchSlug(title);
  return slug ? `svc/${id}-${slug}` : `svc/${id}`;
}
