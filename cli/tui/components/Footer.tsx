/**
 * The bottom line: an open prompt, else the last message, else the keys that apply to the
 * selected task right now — drawn from the bindings in force, so a rebind shows at once.
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import type { TuiOperation } from '../../../shared/tui-keys.js';
import { TASK_OPERATIONS } from '../../../shared/tui-keys.js';
import type { TaskRow } from '../../../shared/wire-types.js';
import { currentQuestion, planAction } from '../actions.js';
import type { Keymap } from '../keys.js';
import { cursorParts, type Line } from '../line-edit.js';
import { selectedTask, type TuiState } from '../state.js';
import { DiffFooter } from './DiffView.js';

export function LineInput({ line }: { line: Line }) {
  const p = cursorParts(line);
  return (
    <Text>
      {p.before}
      <Text inverse>{p.at}</Text>
      {p.after}
    </Text>
  );
}

/** An open text prompt: its yellow header (`children`), the line being typed, and any error. */
function PromptLines({
  line,
  state,
  children,
}: {
  line: Line;
  state: TuiState;
  children: ReactNode;
}) {
  return (
    <Box flexDirection="column">
      <Text color="yellow">{children}</Text>
      <Text>
        {'> '}
        <LineInput line={line} />
      </Text>
      {state.flash?.tone === 'error' ? <Text color="red">{state.flash.text}</Text> : null}
    </Box>
  );
}

/** Operations that apply to `t` now, in a stable order. */
function applicableOps(t: TaskRow | null): TuiOperation[] {
  if (!t) return [];
  return TASK_OPERATIONS.filter((op) => planAction(op, t).kind !== 'unavailable');
}

export function hints(state: TuiState, keymap: Keymap): string {
  const t = selectedTask(state);
  const ops: TuiOperation[] = [...applicableOps(t)];
  if (state.view === 'board' && t) ops.push('open');
  // A task's changes can be read once it has had a worktree.
  if (t?.started_at) ops.push('diff');
  if (state.view === 'detail') ops.push('back');
  if (state.view === 'board') ops.push('filter');
  ops.push('new_task', 'help', 'quit');
  return ops.map((op) => `${keymap.label(op)} ${op.replace('_', '-')}`).join(' · ');
}

export function Footer({ state, keymap }: { state: TuiState; keymap: Keymap }) {
  if (state.filtering)
    return (
      <PromptLines line={state.filtering} state={state}>
        {'filter: title, project, workflow or state · ⏎ keep · esc clear'}
      </PromptLines>
    );
  if (state.view === 'diff' && state.diff && !state.prompt)
    return <DiffFooter state={state} keymap={keymap} />;
  const p = state.prompt;
  if (p?.kind === 'confirm')
    return (
      <Text color="yellow">
        {p.question}
        {' [y/n]'}
      </Text>
    );
  if (p?.kind === 'text') {
    const mode = p.modes[p.mode];
    return (
      <PromptLines line={p.line} state={state}>
        {`#${p.taskId} ${mode?.label ?? ''}${mode?.required ? '' : ' (empty: none)'}`}
        {p.modes.length > 1 ? ` · tab: ${p.modes.map((m) => m.label).join(' / ')}` : ''}
        {' · ⏎ send · esc cancel'}
      </PromptLines>
    );
  }
  if (p?.kind === 'answer') {
    const q = currentQuestion(p);
    const total = p.pending.questions?.length ?? 1;
    return (
      <PromptLines line={p.line} state={state}>
        {q
          ? `#${p.taskId} question ${p.index + 1}/${total}: ${q.text}${q.options?.length ? ` — ${q.options.map((o, i) => `${i + 1}. ${o}`).join('  ')}` : ''}${q.multi_select ? ' (several: 1,3)' : ''}`
          : `#${p.taskId} allow ${p.pending.permission?.tool ?? 'this'}? y/n`}
      </PromptLines>
    );
  }
  return (
    <Box flexDirection="column">
      {state.flash ? (
        <Text color={state.flash.tone === 'error' ? 'red' : 'green'}>{state.flash.text}</Text>
      ) : null}
      {state.view === 'form' || state.view === 'help' ? null : (
        <Text color="gray" wrap="truncate">
          {hints(state, keymap)}
        </Text>
      )}
    </Box>
  );
}
