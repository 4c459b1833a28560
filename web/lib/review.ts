/**
 * A diff review's comments (issue 23 point 4), kept until sent: a line of a file, on the new or
 * the old side, with the text to send back. The daemon composes the prompt (`POST
 * /v1/tasks/{id}/review`, issue 16): the board only collects and sends. Pure.
 */

export type Side = 'new' | 'old';

export interface LineComment {
  path: string;
  line: number;
  side: Side;
  body: string;
}

export const commentKey = (c: { path: string; line: number; side: Side }) =>
  `${c.side}:${c.line}:${c.path}`;

/** How the review reaches the task in this state, or null when a review cannot be sent now. */
export function reviewAction(state: string): { action: string; label: string } | null {
  if (state === 'done' || state === 'aborted')
    return { action: 'follow_up', label: 'Send as follow-up' };
  if (state === 'awaiting_gate') return { action: 'reject_repair', label: 'Reject and repair' };
  return null;
}

export interface ReviewBody {
  comments: LineComment[];
  summary?: string;
  run?: number;
  dry_run?: boolean;
}

/** The request body: comments in file then line order, blank ones left out. */
export function reviewBody(
  comments: Iterable<LineComment>,
  summary: string,
  run: number | null,
  dryRun = false,
): ReviewBody {
  const list = [...comments]
    .filter((c) => c.body.trim() !== '')
    .sort(
      (a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.side.localeCompare(b.side),
    );
  return {
    comments: list,
    ...(summary.trim() !== '' ? { summary } : {}),
    ...(run !== null ? { run } : {}),
    ...(dryRun ? { dry_run: true } : {}),
  };
}

/** Whether there is anything to send: a comment or a summary (the route's own rule). */
export function canSend(comments: Iterable<LineComment>, summary: string): boolean {
  for (const c of comments) if (c.body.trim() !== '') return true;
  return summary.trim() !== '';
}

/** Files as a tree for the side panel: folders first, then files, each sorted by name. */
export interface TreeNode {
  name: string;
  path: string;
  children?: TreeNode[];
}

export function fileTree(paths: readonly string[]): TreeNode[] {
  const root: TreeNode = { name: '', path: '', children: [] };
  for (const p of paths) {
    const parts = p.split('/');
    let at = root;
    parts.forEach((part, i) => {
      const isFile = i === parts.length - 1;
      const path = parts.slice(0, i + 1).join('/');
      at.children ??= [];
      let next = at.children.find((c) => c.name === part && (c.children === undefined) === isFile);
      if (!next) {
        next = isFile ? { name: part, path } : { name: part, path, children: [] };
        at.children.push(next);
      }
      at = next;
    });
  }
  const sort = (nodes: TreeNode[]): TreeNode[] =>
    nodes
      .map((n) => (n.children ? { ...n, children: sort(n.children) } : n))
      .sort((a, b) => Number(!a.children) - Number(!b.children) || a.name.localeCompare(b.name));
  // A folder with a single folder inside reads as one: `src/lib`.
  const squash = (n: TreeNode): TreeNode => {
    if (!n.children) return n;
    let node = n;
    while (node.children?.length === 1 && node.children[0]?.children)
      node = { ...node.children[0], name: `${node.name}/${node.children[0].name}` };
    return { ...node, children: node.children?.map(squash) };
  };
  return sort(root.children ?? []).map(squash);
}
