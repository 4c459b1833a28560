/** The new-task form: one row per input, the focused one editable, and the `/v1/resolve` preview. */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { type FormState, formRows, previewLines } from '../form.js';
import { LineInput } from './Footer.js';

export function Form({ form, height = 40 }: { form: FormState; height?: number }) {
  const rows = formRows(form);
  const current = rows[form.focus];
  // A workflow with many fields scrolls so the focused row stays on screen (errors take a line each).
  const fits = Math.max(4, height - 6 - Object.keys(form.errors).length);
  const first = Math.max(0, Math.min(form.focus - Math.floor(fits / 2), rows.length - fits));
  return (
    <Box flexDirection="column">
      <Text
        bold
      >{`New task${rows.length > fits ? ` (${form.focus + 1}/${rows.length})` : ''}`}</Text>
      {rows.map((row, i) => {
        if (i < first || i >= first + fits) return null;
        const focused = i === form.focus;
        const value = form.values[row.key] ?? '';
        const label = `${focused ? '›' : ' '} ${row.label}${row.required ? '*' : ''}`.padEnd(22);
        let shown: ReactNode;
        if (row.control === 'text')
          shown = focused ? <LineInput line={form.line} /> : <Text>{value}</Text>;
        else if (row.control === 'multi') {
          const picked = new Set(value.split(',').filter(Boolean));
          shown = (
            <Text>
              {row.options.map((o, j) => (
                <Text key={o} inverse={focused && j === form.optionCursor}>
                  {`${picked.has(o) ? '[x]' : '[ ]'} ${o}  `}
                </Text>
              ))}
            </Text>
          );
        } else
          shown = <Text>{`${focused ? '‹ ' : ''}${value || '(none)'}${focused ? ' ›' : ''}`}</Text>;
        return (
          <Box key={row.key} flexDirection="column">
            <Text wrap="truncate">
              <Text bold={focused}>{label}</Text>
              {shown}
            </Text>
            {form.errors[row.key] ? <Text color="red">{`    ${form.errors[row.key]}`}</Text> : null}
          </Box>
        );
      })}
      {current?.help ? <Text color="gray">{`  ${current.help}`}</Text> : null}
      {previewLines(form.preview, form.previewError).map((l) => (
        <Text key={l} color="cyan" wrap="truncate">
          {`  ${l}`}
        </Text>
      ))}
      {form.message ? <Text color="red">{form.message}</Text> : null}
      <Text color="gray">
        ↑↓/tab move · ←→ change · space tick · ⏎ next (submit on the last row) · ^S create · esc
        cancel
      </Text>
    </Box>
  );
}
