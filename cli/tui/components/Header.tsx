/** The top line: counts by what needs a human, the connection, and one quota badge per agent. */
import { Box, Text } from 'ink';
import { quotaBadge } from '../cells.js';
import { type TuiState, visibleTasks, WAITING_STATES } from '../state.js';
import { TONE_COLOR } from './theme.js';

export function Header({ state, now }: { state: TuiState; now: number }) {
  // Counted over every task the daemon has (the board reads them all), lanes included.
  const roots = state.tasks.filter((t) => t.parent_task_id === null);
  const waiting = state.tasks.filter((t) => WAITING_STATES.has(t.state)).length;
  const shown = state.filter.trim() !== '' ? visibleTasks(state).length : null;
  const running = state.tasks.filter((t) => t.state === 'running').length;
  const conn =
    state.connection === 'live'
      ? null
      : state.connection === 'lost'
        ? 'daemon unreachable, retrying…'
        : 'connecting…';
  // One line whatever the width: the counts first, badges after, cut at the edge.
  return (
    <Box>
      <Text wrap="truncate">
        <Text bold>svc</Text>
        {` ${roots.length} tasks · ${running} running · ${waiting} waiting on you`}
        {shown !== null ? (
          <Text color="cyan">{`  filter "${state.filter.trim()}": ${shown} shown`}</Text>
        ) : null}
        {conn ? <Text color="red">{`  ${conn}`}</Text> : null}
        {state.agents && state.agents.agents.length > 0 ? '   ' : ''}
        {(state.agents?.agents ?? []).map((a, i) => {
          const b = quotaBadge(a, now);
          return (
            <Text key={a.name} color={TONE_COLOR[b.tone]}>
              {`${i > 0 ? ' · ' : ''}${b.text}`}
            </Text>
          );
        })}
      </Text>
    </Box>
  );
}
