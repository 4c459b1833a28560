/**
 * What a gate is asked to judge, in the detail pane of a task at `awaiting_gate` (issue 16 point
 * 3): the files its work changed with their +/- counts, and the key that opens the diff view.
 */
import { Text } from 'ink';
import { clip } from '../cells.js';
import { keymapOf, type TuiState } from '../state.js';

const MARK: Record<string, string> = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R' };
const SHOWN = 5;

/** The lines the pane draws (none unless the stat of `taskId` is at hand). */
export function gateStatLines(state: TuiState, taskId: number, width: number): string[] {
  const g = state.gateStat;
  if (!g || g.taskId !== taskId) return [];
  const s = g.stat;
  const n = s.files.length;
  const key = keymapOf(state.settings).label('diff');
  const head =
    n === 0
      ? `changes  none against ${s.base_branch}`
      : `changes  ${n} file${n === 1 ? '' : 's'} +${s.additions} -${s.deletions} against ${s.base_branch} · ${key}: the diff`;
  const files = s.files.slice(0, SHOWN).map((f) => {
    const name = f.old_path ? `${f.old_path} → ${f.path}` : f.path;
    return clip(
      `  ${MARK[f.status] ?? '?'} ${name}  ${f.binary ? 'binary' : `+${f.additions} -${f.deletions}`}`,
      width,
    );
  });
  if (n > SHOWN) files.push(`  … ${n - SHOWN} more`);
  return [head, ...files];
}

export function GateStat({ lines }: { lines: string[] }) {
  return (
    <>
      {lines.map((line, i) => (
        <Text key={line} wrap="truncate" color={i === 0 ? 'cyan' : undefined}>
          {line}
        </Text>
      ))}
    </>
  );
}
