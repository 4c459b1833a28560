/**
 * One task: where it runs, what it costs, why it waits, the step timeline (attempts folded,
 * groups and loop iterations indented — the same timeline `svc task show` prints) and its live
 * output below, as much as fits.
 */
import { Box, Text } from 'ink';
import type { ChildrenRollup, TaskDetail } from '../../../shared/wire-types.js';
import { timeline } from '../../commands/tasks.js';
import { changesLines, gateInstructions, pendingLines } from '../../waiting.js';
import {
  clip,
  costCell,
  durationCell,
  fileUrl,
  hyperlink,
  lanesCell,
  loopCell,
  stateCell,
  windowAround,
} from '../cells.js';
import { laneCounts } from '../grouping.js';
import { selectedTask, type TuiState } from '../state.js';
import { GateStat, gateStatLines } from './GateStat.js';
import { TONE_COLOR } from './theme.js';

/** What the task waits on the user for: the agent's question, or the gate's instructions. */
function askLines(d: TaskDetail): string[] {
  if (d.pending_input) return pendingLines(d.pending_input);
  const gate = d.state === 'awaiting_gate' ? gateInstructions(d) : null;
  return gate
    ? [
        `gate ${gate.step}:`,
        ...gate.text
          .replace(/\n+$/, '')
          .split('\n')
          .map((l) => `  ${l}`),
      ]
    : [];
}

/** The lanes rollup as `svc task show` words it: settled, then merged and not (decision 191). */
function childrenCell(c: ChildrenRollup): string {
  const merged =
    c.merged !== undefined ? `, ${c.merged} merged, ${c.unmerged ?? 0} not merged` : '';
  return `lanes ${c.settled}/${c.total} settled${merged}`;
}

export function Detail({
  state,
  width,
  height,
  now,
}: {
  state: TuiState;
  width: number;
  height: number;
  now: number;
}) {
  const d = state.detail;
  const t = selectedTask(state);
  if (!d || !t) return <Text color="gray">loading task…</Text>;
  const st = stateCell(t, now);
  const links = state.settings.hyperlinks;
  const lanes = laneCounts(state.tasks).get(t.id);
  const progress = [
    `cost ${costCell(t.cost_usd)}`,
    durationCell(t, now),
    loopCell(t.loop),
    d.children ? childrenCell(d.children) : lanesCell(lanes),
  ].filter(Boolean);
  const head: string[] = [
    `project ${t.project_name ?? t.project_id} · workflow ${t.workflow}${t.branch_name ? ` · branch ${t.branch_name}` : ''}`,
    progress.join(' · '),
  ];
  const why = t.state === 'blocked' && d.block_detail ? [`why: ${d.block_detail}`] : [];
  // A lane a human chose to go on without: its work is only on its branch (decision 191).
  const leftOut = (d.children?.left_out ?? []).map(
    (l) => `left out: lane ${l.lane_id} (task ${l.task_id}, ${l.reason}): branch ${l.branch}`,
  );
  // A long timeline keeps the current step (the `>` row) in view and leaves room for output.
  const steps = d.steps
    ? windowAround(
        timeline(d).split('\n'),
        (l) => l.startsWith('>'),
        Math.max(6, Math.floor(height / 2)),
      )
    : [];
  const asks = [...askLines(d), ...changesLines({ ...d, ...t })];
  const stat = gateStatLines(state, t.id, width);
  const used =
    3 + head.length + why.length + leftOut.length + asks.length + stat.length + steps.length + 2;
  const room = Math.max(3, height - used);
  const output = state.output.slice(-room);
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>{`#${t.id} ${clip(t.title, Math.max(10, width - 40))}`}</Text>
        <Text color={TONE_COLOR[st.tone]}>{`  ${st.text}`}</Text>
      </Text>
      {t.status_message ? <Text color="gray">{clip(t.status_message, width)}</Text> : null}
      {head.map((line) => (
        <Text key={line} wrap="truncate">
          {line}
        </Text>
      ))}
      {t.worktree_path ? (
        <Text wrap="truncate">
          {'worktree '}
          {hyperlink(t.worktree_path, fileUrl(t.worktree_path), links)}
        </Text>
      ) : null}
      {t.forge_issue?.url || t.forge_pull?.url ? (
        <Text wrap="truncate">
          {'link '}
          {hyperlink(
            String(t.forge_pull?.url ?? t.forge_issue?.url),
            t.forge_pull?.url ?? t.forge_issue?.url,
            links,
          )}
        </Text>
      ) : null}
      {why.map((line) => (
        <Text key={line} color="red" wrap="truncate">
          {line}
        </Text>
      ))}
      {leftOut.map((line) => (
        <Text key={line} color="yellow" wrap="truncate">
          {line}
        </Text>
      ))}
      {asks.map((line) => (
        <Text key={line} color="yellow" wrap="truncate">
          {line}
        </Text>
      ))}
      <GateStat lines={stat} />
      <Text bold>Steps</Text>
      {steps.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: timeline rows are positional
        <Text key={i} wrap="truncate">
          {line}
        </Text>
      ))}
      <Text bold>Output</Text>
      {output.length === 0 ? <Text color="gray">no output yet</Text> : null}
      {output.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: output lines repeat; position is identity
        <Text key={i} wrap="truncate">
          {line || ' '}
        </Text>
      ))}
    </Box>
  );
}
