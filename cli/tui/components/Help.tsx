/** Every operation with the key bound to it now (`tui.keys` applied), and the fixed movement keys. */
import { Box, Text } from 'ink';
import { TUI_OPERATIONS, type TuiOperation } from '../../../shared/tui-keys.js';
import type { Keymap } from '../keys.js';

const OPERATION_HELP: Record<TuiOperation, string> = {
  approve: 'approve the gate the task waits at',
  reject: 'reject the gate (the task blocks)',
  answer: 'answer the agent’s question or permission request',
  retry: 'retry a blocked task; override the step’s prompt or command, or the branch',
  repair: 'run a repair agent on a blocked task with your prompt',
  skip: 'skip the step the task is gated or blocked at',
  merge_finished:
    'at a fan-out join: merge the lanes that finished, leave the rest out (asks first)',
  pause: 'pause (a running task holds at the next step boundary)',
  resume: 'resume a paused task',
  cancel: 'cancel the task (asks first)',
  archive: 'archive a done or aborted task, removing its worktree (asks first)',
  follow_up: 'one more round on a done or aborted task: prompt, command or workflow',
  chat: 'open a chat on a stopped task',
  new_task: 'create a task',
  open: 'open the selected task',
  diff: 'the selected task’s changes: files, hunks, comments for the agent',
  back: 'back to the board',
  refresh: 'read everything again',
  help: 'this help',
  quit: 'quit (ctrl+c always quits)',
  next_file: 'diff view: the next file',
  prev_file: 'diff view: the previous file',
  comment: 'diff view: comment on the marked line (empty text removes it)',
  send_review: 'diff view: send the comments to the agent (asks first)',
};

export function Help({ keymap }: { keymap: Keymap }) {
  return (
    <Box flexDirection="column">
      <Text bold>Keys</Text>
      <Text>{'  ↑ ↓ j k  move · pgup pgdn home end  jump'}</Text>
      {TUI_OPERATIONS.map((op) => (
        <Text key={op} wrap="truncate">
          {`  ${keymap.label(op).padEnd(7)}  ${op.padEnd(10)} ${OPERATION_HELP[op]}`}
        </Text>
      ))}
      <Text color="gray" wrap="truncate">
        Rebind with tui.keys in config.yaml (docs/tui.md). Any key closes help.
      </Text>
    </Box>
  );
}
