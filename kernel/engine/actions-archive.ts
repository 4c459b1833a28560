/**
 * Archive (SPEC §3.2): a done or aborted task, its finished lanes first, its worktree removed
 * (never another installation's, decision 194) unless it holds uncommitted work and the caller
 * did not force, then what to do with its branch (decision 062).
 */
import { SvcError } from '../errors.js';
import type { TaskRow } from '../store/index.js';
import type { ActionKit } from './action-kit.js';
import { type BranchOutcome, dropWorktree, judgeBranch, worktreeDirty } from './archive.js';
import { actionAllowed } from './transitions.js';
import { isForeignWorktree } from './worktree.js';

/** Files an archive refused for `worktree_dirty` names (the rest are counted in `more_files`). */
const DIRTY_FILES_SHOWN = 20;

export async function archive(
  kit: ActionKit,
  id: number,
  opts: { force?: boolean; human?: boolean } = {},
): Promise<{ task: TaskRow; branch?: BranchOutcome }> {
  const first = kit.load(id);
  kit.locked(first, 'archive');
  if (!actionAllowed('archive', first.state))
    throw new SvcError('invalid_state', `cannot archive a task that is ${first.state}`, {
      state: first.state,
    });
  const unfinished = kit.d.tasks
    .descendants(id)
    .filter((c) => !['done', 'aborted', 'archived'].includes(c.state));
  if (unfinished.length > 0) {
    throw new SvcError('invalid_state', `task ${id} has ${unfinished.length} unfinished lanes`, {
      state: first.state,
      reason: 'children_unfinished',
    });
  }
  const force = opts.force === true;
  // A worktree of another installation (a copied database) is left where it is (decision 194).
  const foreign =
    first.worktree_path !== null &&
    kit.d.worktreesDir !== undefined &&
    isForeignWorktree(first.worktree_path, kit.d.worktreesDir);
  const dirty = force || foreign ? null : await worktreeDirty(first);
  if (dirty) {
    // Names the worktree and what is in it, so a person can look before forcing (issue 19).
    const shown = dirty.slice(0, DIRTY_FILES_SHOWN).map((e) => `${e.code} ${e.path}`);
    throw new SvcError(
      'invalid_state',
      `the worktree of task ${id} (${first.worktree_path}) has uncommitted changes in ${dirty.length} file${dirty.length === 1 ? '' : 's'}; commit them or archive with force`,
      {
        state: first.state,
        reason: 'worktree_dirty',
        path: first.worktree_path,
        files: shown,
        more_files: dirty.length - shown.length,
      },
    );
  }
  for (const child of kit.d.tasks.children(id)) {
    if (child.state === 'done' || child.state === 'aborted')
      await archive(kit, child.id, { force, human: false });
  }
  const project = kit.d.projects.require(first.project_id);
  if (!foreign) await dropWorktree(project.path, first, force);
  const task = kit.act(id, 'archive', (t) =>
    kit.d.states.apply(t.id, 'archive', t.state, {
      worktree_path: null,
      archived_at: kit.now(),
    }),
  );
  const branch = await judgeBranch(
    project.path,
    first,
    kit.d.config.current(),
    opts.human !== false,
  );
  return { task, branch };
}
