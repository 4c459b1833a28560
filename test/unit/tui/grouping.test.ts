// Issue 12 point 1: tasks grouped per tui.board.group_by (project, workflow; [] flat), lanes under
// their parent with counts over the whole subtree.
import { describe, expect, it } from 'vitest';
import { boardLines, laneCounts, selectableIds } from '../../../cli/tui/grouping.js';
import { row } from './fixtures.js';

const rows = [
  row(1, { project_name: 'web', workflow: 'build' }),
  row(2, { project_name: 'api', workflow: 'review' }),
  row(3, { project_name: 'api', workflow: 'build' }),
  row(4, {
    project_name: 'api',
    workflow: 'build',
    parent_task_id: 3,
    lane_id: 'left',
    lane_order: 1,
    state: 'done',
  }),
  row(5, {
    project_name: 'api',
    workflow: 'build',
    parent_task_id: 3,
    lane_id: 'right',
    lane_order: 0,
    state: 'blocked',
  }),
  row(6, {
    project_name: 'api',
    workflow: 'build',
    parent_task_id: 5,
    lane_id: 'deep',
    state: 'awaiting_gate',
  }),
];

const show = (groupBy: string[]) =>
  boardLines(rows, groupBy).map(
    (l) =>
      `${'  '.repeat(l.depth)}${l.kind === 'group' ? `[${l.label} ${l.count}]` : `#${l.task.id}`}`,
  );

describe('boardLines', () => {
  it('groups by project then workflow (the default), groups sorted, newest first inside', () => {
    expect(show(['project', 'workflow'])).toEqual([
      '[api 2]',
      '  [build 1]',
      '    #3',
      '      #5',
      '        #6',
      '      #4',
      '  [review 1]',
      '    #2',
      '[web 1]',
      '  [build 1]',
      '    #1',
    ]);
  });

  it('groups by workflow alone, and draws flat with []', () => {
    expect(show(['workflow'])).toEqual([
      '[build 2]',
      '  #3',
      '    #5',
      '      #6',
      '    #4',
      '  #1',
      '[review 1]',
      '  #2',
    ]);
    expect(show([])).toEqual(['#3', '  #5', '    #6', '  #4', '#2', '#1']);
  });

  it('shows a lane whose parent is not in the list as a root', () => {
    const lines = boardLines([row(9, { parent_task_id: 8, lane_id: 'x' })], []);
    expect(lines).toMatchObject([{ kind: 'task', depth: 0, task: { id: 9 } }]);
  });

  it('lists selectable ids in drawing order', () => {
    expect(selectableIds(boardLines(rows, ['project']))).toEqual([3, 5, 6, 4, 2, 1]);
  });
});

describe('laneCounts', () => {
  it('rolls up the whole subtree: settled, blocked and at a gate', () => {
    const c = laneCounts(rows);
    expect(c.get(3)).toEqual({ total: 3, settled: 1, blocked: 1, awaiting_gate: 1 });
    expect(c.get(5)).toEqual({ total: 1, settled: 0, blocked: 0, awaiting_gate: 1 });
    expect(c.has(1)).toBe(false);
  });
});
