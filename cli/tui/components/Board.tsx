/**
 * The task list: group headers per `tui.board.group_by`, one row per task (lanes indented under
 * their parent) with state, step progress, cost, duration and title. Scrolls to keep the
 * selection visible.
 */
import { Box, Text } from 'ink';
import {
  clip,
  costCell,
  durationCell,
  hyperlink,
  stateCell,
  stepCell,
  type Tone,
} from '../cells.js';
import { type BoardLine, boardLines, laneCounts } from '../grouping.js';
import { type TuiState, visibleTasks } from '../state.js';
import { TONE_COLOR } from './theme.js';

export interface BoardProps {
  state: TuiState;
  width: number;
  height: number;
  now: number;
}

/** The slice of lines to draw so the selected one stays in view. */
function visibleWindow(lines: BoardLine[], selectedId: number | null, height: number) {
  const at = lines.findIndex((l) => l.kind === 'task' && l.task.id === selectedId);
  if (lines.length <= height || at < 0) return lines.slice(0, Math.max(0, height));
  const start = Math.min(Math.max(0, at - Math.floor(height / 2)), lines.length - height);
  return lines.slice(start, start + height);
}

interface Cells {
  id: string;
  state: { text: string; tone: Tone };
  step: string;
  cost: string;
  time: string;
  title: string;
}

const widest = (values: string[], cap: number) =>
  Math.min(cap, Math.max(0, ...values.map((v) => [...v].length)));

export function Board({ state, width, height, now }: BoardProps) {
  if (!state.loaded) return <Text color="gray">loading tasks…</Text>;
  const lines = boardLines(visibleTasks(state), state.settings.group_by);
  if (lines.length === 0)
    return state.filter.trim() !== '' ? (
      <Text color="gray">{`no task matches "${state.filter}" — escape clears the filter`}</Text>
    ) : (
      <Text color="gray">no tasks yet — press the new-task key to create one</Text>
    );
  const lanes = laneCounts(state.tasks);
  const shown = visibleWindow(lines, state.selectedId, height);
  const cells = new Map<number, Cells>();
  for (const l of shown) {
    if (l.kind !== 'task') continue;
    const t = l.task;
    // Lanes sit under their parent, indented in the title column so the other columns align.
    const laneDepth = l.depth - state.settings.group_by.length;
    cells.set(t.id, {
      id: `#${t.id}`,
      state: stateCell(t, now),
      step: stepCell(t, lanes.get(t.id)),
      cost: costCell(t.cost_usd),
      time: durationCell(t, now),
      title: t.lane_id ? `${'  '.repeat(Math.max(0, laneDepth - 1))}└ ${t.lane_id}` : t.title,
    });
  }
  const all = [...cells.values()];
  const w = {
    id: widest(
      all.map((c) => c.id),
      8,
    ),
    state: widest(
      all.map((c) => c.state.text),
      34,
    ),
    step: widest(
      all.map((c) => c.step),
      Math.max(16, Math.floor(width * 0.36)),
    ),
    cost: widest(
      all.map((c) => c.cost),
      9,
    ),
    time: widest(
      all.map((c) => c.time),
      7,
    ),
  };
  const titleW = Math.max(8, width - 2 - w.id - w.state - w.step - w.cost - w.time - 10);
  return (
    <Box flexDirection="column">
      {shown.map((l) => {
        if (l.kind === 'group')
          return (
            <Text key={`g-${l.depth}-${l.label}`} bold color="blue" wrap="truncate">
              {`${'  '.repeat(l.depth)}${l.label} (${l.count})`}
            </Text>
          );
        const t = l.task;
        const c = cells.get(t.id) as Cells;
        const selected = t.id === state.selectedId;
        const title = hyperlink(
          clip(c.title, titleW),
          t.forge_pull?.url ?? t.forge_issue?.url,
          state.settings.hyperlinks,
        );
        return (
          <Text key={t.id} inverse={selected} wrap="truncate">
            {selected ? '› ' : '  '}
            {`${c.id.padEnd(w.id)}  `}
            <Text color={TONE_COLOR[c.state.tone]}>
              {clip(c.state.text, w.state).padEnd(w.state)}
            </Text>
            {`  ${clip(c.step, w.step).padEnd(w.step)}  `}
            {`${c.cost.padStart(w.cost)}  ${c.time.padStart(w.time)}  `}
            {title}
          </Text>
        );
      })}
    </Box>
  );
}
