// Issue 3 point 9: the example workflows validate with no finding, and resolve into snapshots
// together (the include of the shared test suite, the named lane workflow of the fan-out).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { digestOf, resolveSnapshot, type WorkflowSource } from '../../../kernel/workflows/index.js';
import { check, options } from './support.js';

const DIR = fileURLToPath(new URL('../../../examples/workflows/', import.meta.url));
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

async function sources(): Promise<WorkflowSource[]> {
  return Promise.all(
    files.map(async (f) => {
      const text = readFileSync(DIR + f, 'utf8');
      const validation = await check(text);
      return {
        name: validation.declaredName ?? f,
        scope: 'global' as const,
        relFile: `workflows/${f}`,
        digest: digestOf(text).digest,
        validation,
      };
    }),
  );
}

describe('examples/workflows', () => {
  it('holds the four kinds the docs point to', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'feature-with-review.yaml',
        'fix-and-test.yaml',
        'fan-out-refactor.yaml',
        'release.yaml',
        'shared-tests.yaml',
      ]),
    );
  });

  for (const f of files) {
    it(`${f} validates with no errors or warnings, named after its file`, async () => {
      const r = await check(readFileSync(DIR + f, 'utf8'));
      expect(r.errors).toEqual([]);
      expect(r.warnings).toEqual([]);
      expect(`${r.declaredName}.yaml`).toBe(f);
    });
  }

  it('resolve into snapshots together', async () => {
    const all = await sources();
    const view = { find: (name: string) => all.find((s) => s.name === name) };
    const opts = { ...(await options()), host: { os: 'linux' } };
    for (const root of all) {
      const r = resolveSnapshot(root, view, opts);
      expect(r.ok, `${root.name}: ${JSON.stringify(!r.ok && r.errors)}`).toBe(true);
    }
    const release = resolveSnapshot(view.find('release') as WorkflowSource, view, opts);
    expect(release.ok && release.snapshot.steps.map((s) => [s.id, s.resolved_from ?? []])).toEqual([
      ['bump', []],
      ['checks', ['shared-tests']],
      ['integration', ['shared-tests']],
      ['changelog', []],
      ['tag', []],
    ]);
  });
});
