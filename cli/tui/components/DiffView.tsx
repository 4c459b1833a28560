/**
 * The diff view (issue 16 point 3): the changed files with their +/- counts on the left, the hunks
 * of the selected file on the right with the marked line and the comments typed on lines, and a
 * footer of the keys in force (or the comment being typed, or the question before sending).
 */
import { Box, Text } from 'ink';
import type { TuiOperation } from '../../../shared/tui-keys.js';
import { clip } from '../cells.js';
import {
  bodyOf,
  confirmQuestion,
  type DiffRow,
  type DiffState,
  diffPaneHeight,
  noteAt,
  selectedFile,
} from '../diff.js';
import type { Keymap } from '../keys.js';
import { cursorParts, type Line } from '../line-edit.js';
import type { TuiState } from '../state.js';

/** The comment being typed, with an inverse-video cursor cell (as the footer's prompts draw it). */
function Typing({ line }: { line: Line }) {
  const p = cursorParts(line);
  return (
    <Text>
      {'> '}
      {p.before}
      <Text inverse>{p.at}</Text>
      {p.after}
    </Text>
  );
}

const STATUS_MARK: Record<string, string> = {
  added: 'A',
  modified: 'M',
  deleted: 'D',
  renamed: 'R',
};

const ROW_COLOR: Partial<Record<DiffRow['kind'], string>> = {
  add: 'green',
  del: 'red',
  hunk: 'cyan',
  info: 'gray',
  note: 'gray',
};

function FileList({ d, width, height }: { d: DiffState; width: number; height: number }) {
  const files = d.stat?.files ?? [];
  const start = Math.max(0, Math.min(d.file - Math.floor(height / 2), files.length - height));
  return (
    <Box flexDirection="column" width={width}>
      {files.slice(start, start + height).map((f, i) => {
        const at = start + i;
        const notes = d.notes.filter((n) => n.path === f.path).length;
        const counts = f.binary ? 'bin' : `+${f.additions} -${f.deletions}`;
        const tail = `${notes > 0 ? ` ✎${notes}` : ''} ${counts}`;
        const name = clip(f.path, Math.max(4, width - tail.length - 4));
        return (
          <Text key={f.path} wrap="truncate" inverse={at === d.file}>
            {`${at === d.file ? '›' : ' '}${STATUS_MARK[f.status] ?? '?'} ${name}`}
            <Text color="gray">{tail}</Text>
          </Text>
        );
      })}
    </Box>
  );
}

const num = (n: number | null) => (n === null ? '' : String(n)).padStart(4);

function Hunks({ d, width, height }: { d: DiffState; width: number; height: number }) {
  const body = bodyOf(d);
  const f = selectedFile(d);
  if (!f) return <Text color="gray">no changes</Text>;
  if (body === null || body === 'loading') return <Text color="gray">{`reading ${f.path}…`}</Text>;
  if ('error' in body) return <Text color="red">{body.error}</Text>;
  // Rows from `top`, each commented line followed by its comment, cut at the pane's height.
  const lines: Array<{ key: string; text: string; color?: string; marked: boolean }> = [];
  for (let i = d.top; i < body.rows.length && (lines.length < height || i <= d.cursor); i++) {
    const row = body.rows[i] as DiffRow;
    const isMarked = i === d.cursor;
    const sign = row.kind === 'add' ? '+' : row.kind === 'del' ? '-' : ' ';
    const text =
      row.kind === 'hunk' || row.kind === 'info' || row.kind === 'note'
        ? `${isMarked ? '›' : ' '}          ${row.text}`
        : `${isMarked ? '›' : ' '}${num(row.old)} ${num(row.new)} ${sign}${row.text}`;
    lines.push({
      key: `r${i}`,
      text: clip(text, width),
      color: ROW_COLOR[row.kind],
      marked: isMarked,
    });
    const note = noteAt(d, f.path, row);
    if (note)
      for (const [j, part] of note.body.split('\n').entries())
        lines.push({
          key: `n${i}.${j}`,
          text: clip(`           ${j === 0 ? '✎' : ' '} ${part}`, width),
          color: 'yellow',
          marked: false,
        });
  }
  // Comments take rows too: the window ends at the marked line when they push it past the bottom.
  const marked = lines.findIndex((l) => l.marked);
  const start = Math.max(0, marked - height + 1);
  return (
    <Box flexDirection="column" width={width}>
      {lines.slice(start, start + height).map((l) => (
        <Text key={l.key} color={l.color} wrap="truncate" bold={l.marked} inverse={l.marked}>
          {l.text || ' '}
        </Text>
      ))}
    </Box>
  );
}

export function DiffView({ state, width }: { state: TuiState; width: number }) {
  const d = state.diff as DiffState;
  const task = state.tasks.find((t) => t.id === d.taskId);
  const height = diffPaneHeight(state.page);
  const s = d.stat;
  const title = s
    ? `changes against ${s.base_branch}${s.source === 'branch' ? ' (branch: committed work only)' : ''} · ${s.files.length} file${s.files.length === 1 ? '' : 's'} +${s.additions} -${s.deletions}${s.truncated ? ' · list cut' : ''}`
    : 'reading the diff…';
  const listWidth = Math.max(16, Math.min(40, Math.floor(width * 0.35)));
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text bold>{`#${d.taskId} ${clip(task?.title ?? '', Math.max(10, width / 3))}`}</Text>
        {task ? <Text color="gray">{` ${task.state}`}</Text> : null}
        {`  ${title}`}
      </Text>
      {d.error ? (
        <Text color="red">{d.error}</Text>
      ) : s && s.files.length === 0 ? (
        <Text color="gray">the task changed nothing against its base</Text>
      ) : (
        <Box>
          <FileList d={d} width={listWidth} height={height} />
          <Box
            borderStyle="single"
            borderColor="gray"
            borderTop={false}
            borderBottom={false}
            borderRight={false}
            paddingLeft={1}
          >
            <Hunks d={d} width={Math.max(20, width - listWidth - 3)} height={height} />
          </Box>
        </Box>
      )}
    </Box>
  );
}

/** The diff view's bottom lines: the comment being typed, the question, or the keys in force. */
export function DiffFooter({ state, keymap }: { state: TuiState; keymap: Keymap }) {
  const d = state.diff as DiffState;
  const task = state.tasks.find((t) => t.id === d.taskId);
  const f = selectedFile(d);
  if (d.editing) {
    const body = bodyOf(d);
    const row = body && typeof body === 'object' && 'rows' in body ? body.rows[d.cursor] : null;
    const where = row?.kind === 'del' ? `${row.old} (old)` : String(row?.new ?? '');
    return (
      <Box flexDirection="column">
        <Text color="yellow">{`#${d.taskId} comment on ${f?.path ?? ''}:${where} · ⏎ keep (empty: remove) · esc cancel`}</Text>
        <Typing line={d.editing} />
      </Box>
    );
  }
  if (d.confirm) return <Text color="yellow">{`${confirmQuestion(d, task?.state)} [y/n]`}</Text>;
  const ops: TuiOperation[] = ['next_file', 'prev_file', 'comment'];
  if (d.notes.length > 0) ops.push('send_review');
  for (const op of ['approve', 'reject'] as const)
    if (task?.available_actions.includes(op)) ops.push(op);
  ops.push('back', 'help');
  const hint = (op: TuiOperation) =>
    `${keymap.label(op)} ${op === 'send_review' ? `send ${d.notes.length}` : op.replace('_', ' ')}`;
  return (
    <Box flexDirection="column">
      {state.flash ? (
        <Text color={state.flash.tone === 'error' ? 'red' : 'green'}>{state.flash.text}</Text>
      ) : null}
      <Text color="gray" wrap="truncate">
        {`↑↓ mark a line · ${ops.map(hint).join(' · ')}`}
      </Text>
    </Box>
  );
}
