/**
 * Git's branch-name rules (`git check-ref-format --branch`), in TypeScript so a name can be judged
 * inside the task-insert transaction, where no process may be spawned.
 */
export function branchNameProblem(name: string): string | null {
  if (name === '') return 'is empty';
  if (name.startsWith('-')) return 'starts with "-"';
  if (name === '@') return 'is "@"';
  if (name.endsWith('/') || name.endsWith('.')) return 'ends with "/" or "."';
  if (name.includes('..')) return 'contains ".."';
  if (name.includes('//')) return 'contains "//"';
  if (name.includes('@{')) return 'contains "@{"';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: git forbids control characters in ref names
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name))
    return 'contains a space, a control character or one of ~ ^ : ? * [ \\';
  for (const part of name.split('/')) {
    if (part.startsWith('.')) return 'has a component starting with "."';
    if (part.endsWith('.lock')) return 'has a component ending with ".lock"';
  }
  return null;
}

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
