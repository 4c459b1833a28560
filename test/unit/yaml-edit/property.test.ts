import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { applyEdits, type EditFinding, type EditOp } from '../../../lib/yaml-edit/index.js';
import { type Fixture, loadFixtures } from './support/fixtures.js';
import { materialize, seedArb } from './support/op-seeds.js';
import {
  applyReference,
  formatSegments,
  type GeneratedOp,
  type Json,
} from './support/reference.js';
import { touchedSpan } from './support/touched-span.js';

const fixtures = loadFixtures();
// Set YAML_EDIT_RUNS to search harder locally (e.g. 20 runs ten times as many cases).
const scale = Number(process.env.YAML_EDIT_RUNS ?? 1);

function toEditOp(op: GeneratedOp): EditOp {
  const path = formatSegments(op.segments);
  switch (op.op) {
    case 'set':
      return op.block
        ? { op: 'set', path, value: op.value, block: true }
        : { op: 'set', path, value: op.value };
    case 'insert':
      return { op: 'insert', path, item: op.item };
    case 'remove':
      return { op: 'remove', path };
    case 'move':
      return { op: 'move', path, to: op.to };
  }
}

function parseStrict(text: string): Json {
  const doc = parseDocument(text);
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  return doc.toJS() as Json;
}

function commentLines(lines: string[]): string[] {
  return lines.map((l) => l.trim()).filter((l) => l.startsWith('#'));
}

/**
 * The documented limits of `block: true`: a text whose first line starts with whitespace and
 * whose last line is only whitespace (YAML readers drop that line under an indentation indicator),
 * and a `|+` text (two or more trailing line breaks) placed before more blank lines than it ends
 * with, are refused rather than written differently.
 */
function mayRefuse(op: GeneratedOp, findings: EditFinding[]): boolean {
  if (op.op !== 'set' || !op.block || typeof op.value !== 'string') return false;
  const lines = op.value.replace(/\n+$/, '').split('\n');
  const first = lines.find((line) => line !== '') ?? '';
  const last = lines[lines.length - 1]!;
  const indicated = /^\s/.test(first) && /^\s+$/.test(last);
  const kept = op.value.endsWith('\n\n') || /^\n+$/.test(op.value);
  return (indicated || kept) && findings.every((f) => f.code === 'unrepresentable_value');
}

/** Asserts the three properties for one op applied to one fixture. */
function checkOne(fixture: Fixture, op: GeneratedOp): void {
  const before = parseStrict(fixture.text);
  const result = applyEdits(fixture.text, [toEditOp(op)]);
  if (!result.ok) {
    if (mayRefuse(op, result.findings)) return;
    throw new Error(`refused: ${JSON.stringify(result.findings)}`);
  }
  const text = result.text;

  // (1) it parses, (2) to the value the reference computes.
  expect(JSON.stringify(parseStrict(text))).toBe(JSON.stringify(applyReference(before, op)));

  // (3) outside the touched lines every line is byte-identical, line breaks included.
  const { start, end } = touchedSpan(fixture.text, op);
  const oldLines = fixture.text.split('\n');
  const newLines = text.split('\n');
  const keptAfter = oldLines.length - end;
  expect(newLines.slice(0, start)).toEqual(oldLines.slice(0, start));
  expect(newLines.slice(newLines.length - keptAfter)).toEqual(oldLines.slice(end));
  expect(newLines.length).toBeGreaterThanOrEqual(start + keptAfter);

  // Comment lines outside the touched node all survive (those between entries included).
  const outside = commentLines([...oldLines.slice(0, start), ...oldLines.slice(end)]);
  const remaining = commentLines(newLines);
  for (const comment of new Set(outside)) {
    const need = outside.filter((c) => c === comment).length;
    expect(remaining.filter((c) => c === comment).length).toBeGreaterThanOrEqual(need);
  }

  // New lines use the file's line break; the byte order mark stays first.
  if (fixture.text.includes('\r\n')) expect(text.match(/(?<!\r)\n/g)).toBeNull();
  else expect(text).not.toContain('\r');
  expect(text.startsWith('\uFEFF')).toBe(fixture.text.startsWith('\uFEFF'));
}

describe('applyEdits on the workflow corpus', () => {
  it('has a corpus of at least eight fixtures, some CRLF and some flush-style', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(8);
    expect(fixtures.filter((f) => f.text.includes('\r\n')).length).toBeGreaterThanOrEqual(2);
    expect(fixtures.some((f) => /^\w+:\r?\n- /m.test(f.text))).toBe(true);
  });

  it(
    'applies one random op: parses, matches the reference, keeps every other line',
    () => {
      fc.assert(
        fc.property(fc.constantFrom(...fixtures), seedArb, (fixture, seed) => {
          const op = materialize(seed, parseStrict(fixture.text));
          checkOne(fixture, op);
        }),
        { numRuns: 600 * scale },
      );
    },
    30_000 * scale,
  );

  it(
    'applies random op sequences in order, each to the previous result',
    () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...fixtures),
          fc.array(seedArb, { minLength: 2, maxLength: 6 }),
          (fixture, seeds) => {
            let expected = parseStrict(fixture.text);
            const generated: GeneratedOp[] = [];
            for (const seed of seeds) {
              const op = materialize(seed, expected);
              expected = applyReference(expected, op);
              generated.push(op);
            }
            const ops = generated.map(toEditOp);
            const result = applyEdits(fixture.text, ops);
            if (!result.ok) {
              const finding = result.findings[0]!;
              const op = generated[finding.op_index];
              if (op !== undefined && mayRefuse(op, result.findings)) return;
              throw new Error(`refused: ${JSON.stringify(result.findings)}`);
            }
            expect(JSON.stringify(parseStrict(result.text))).toBe(JSON.stringify(expected));
          },
        ),
        { numRuns: 200 * scale },
      );
    },
    30_000 * scale,
  );

  it('leaves the text alone when nothing changes', () => {
    for (const fixture of fixtures) {
      const value = parseStrict(fixture.text) as { name: Json };
      const result = applyEdits(fixture.text, [{ op: 'set', path: 'name', value: value.name }]);
      expect(result).toEqual({ ok: true, text: fixture.text });
    }
  });
});
