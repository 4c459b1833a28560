// Issue 3 point 6, "How it is checked": the byte-preserving edit as a property, end to end through
// PATCH /v1/workflows. It reuses the YAML editor's corpus of real-looking workflow files and its
// op generator and touched-span oracle (test/unit/yaml-edit/support), and checks what only the
// route can get wrong: the bytes on disk outside the touched lines (CRLF, BOM, comments, blank
// lines, block scalars), the file mode, and that a refusal writes nothing.
import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { applyEdits, type EditOp } from '../../../lib/yaml-edit/index.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { loadFixtures } from '../../unit/yaml-edit/support/fixtures.js';
import { materialize, seedArb } from '../../unit/yaml-edit/support/op-seeds.js';
import {
  formatSegments,
  type GeneratedOp,
  type Json,
} from '../../unit/yaml-edit/support/reference.js';
import { touchedSpan } from '../../unit/yaml-edit/support/touched-span.js';
import { list } from './support.js';

const fixtures = loadFixtures();

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

describe('PATCH /v1/workflows is byte-preserving', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ keepOpen: true });
  });
  afterAll(async () => {
    await t.close();
  });

  it('uses a corpus with CRLF, a BOM and flush-style files', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(8);
    expect(fixtures.some((f) => f.text.includes('\r\n'))).toBe(true);
    expect(fixtures.some((f) => f.text.startsWith('\uFEFF'))).toBe(true);
  });

  it('writes exactly the editor result, every untouched line byte-identical, mode kept; refusals write nothing', async () => {
    const file = join(t.paths.workflowsDir, 'under-test.yaml');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...fixtures), seedArb, async (fixture, seed) => {
        rmSync(file, { force: true });
        writeFileSync(file, fixture.text);
        chmodSync(file, 0o640);
        const value = parseDocument(fixture.text.replace(/^\uFEFF/, '')).toJS() as Json;
        const op = materialize(seed, value);
        const row = (await list(t)).find((r) => r.file === file);
        if (!row) throw new Error('fixture not listed');
        const res = await t.api('PATCH', '/v1/workflows', {
          name: row.name,
          file,
          version: row.version,
          ops: [toEditOp(op)],
        });
        const after = readFileSync(file, 'utf8');
        // The route sees the op after a JSON round trip (-0 arrives as 0), so the editor must too.
        const expected = applyEdits(fixture.text, [
          JSON.parse(JSON.stringify(toEditOp(op))) as EditOp,
        ]);
        if (res.statusCode !== 200) {
          // Refused (the editor could not apply it, or the name is taken): not a byte changed.
          expect([400, 409], res.body).toContain(res.statusCode);
          expect(after).toBe(fixture.text);
          return;
        }
        expect(expected.ok).toBe(true);
        if (expected.ok) expect(after).toBe(expected.text);
        const { start, end } = touchedSpan(fixture.text.replace(/^\uFEFF/, ''), op);
        const oldLines = fixture.text.split('\n');
        const newLines = after.split('\n');
        const keptAfter = oldLines.length - end;
        expect(newLines.slice(0, start)).toEqual(oldLines.slice(0, start));
        expect(newLines.slice(newLines.length - keptAfter)).toEqual(oldLines.slice(end));
        if (fixture.text.includes('\r\n')) expect(after.match(/(?<!\r)\n/g)).toBeNull();
        expect(after.startsWith('\uFEFF')).toBe(fixture.text.startsWith('\uFEFF'));
        if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o640);
        expect(res.json().version).toBe((await list(t)).find((r) => r.file === file)?.version);
      }),
      // Each run is a real PATCH through the app; 250 of them take ~20 s on an idle 2-core machine.
      { numRuns: 250 },
    );
  }, 180_000);
});
