import { expect } from 'vitest';
import { applyEdits, type EditFinding, type EditOp } from '../../../../lib/yaml-edit/index.js';

/** Applies ops that must succeed and returns the new text. */
export function edit(source: string, ...ops: EditOp[]): string {
  const result = applyEdits(source, ops);
  if (!result.ok)
    throw new Error(`unexpected findings: ${JSON.stringify(result.findings, null, 2)}`);
  return result.text;
}

/** Applies ops that must fail and returns the findings. */
export function refuse(source: string, ...ops: EditOp[]): EditFinding[] {
  const result = applyEdits(source, ops);
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.findings;
}

/** Joins lines with LF and a final line break, so expected files read like files. */
export function lines(...content: string[]): string {
  return content.join('\n') + '\n';
}
