// Issue 3 point 8: `svc workflow validate` from the built CLI in a fresh process with no daemon and
// empty directories, as CI would run it: built-in step types load from dist/plugins.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { skipUnlessCi } from '../support/ci.js';
import { tempDir } from '../support/tmp.js';

const SVC = fileURLToPath(new URL('../../dist/bin/svc.js', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('../../examples/workflows', import.meta.url));

function svc(root: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [SVC, ...args], {
    env: { ...process.env, SVC_CONFIG_DIR: join(root, 'config'), SVC_DATA_DIR: join(root, 'data') },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout.trim(), err: r.stderr.trim() };
}

describe.skipIf(
  skipUnlessCi(
    !existsSync(SVC) && 'dist/ is not built (npm run build)',
    'svc workflow validate, built, offline',
  ),
)('svc workflow validate, built, offline', () => {
  it('accepts the examples and refuses a broken file with exit code 6', () => {
    const root = tempDir();
    const ok = svc(root, 'workflow', 'validate', EXAMPLES);
    expect(ok.err).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.out.split('\n')).toHaveLength(6);
    const bad = join(root, 'bad.yaml');
    writeFileSync(
      bad,
      'name: bad\nsteps:\n  - type: parallel\n    steps:\n      - type: manual\n        instructions: x\n',
    );
    const refused = svc(root, 'workflow', 'validate', '--json', bad);
    expect(refused.code).toBe(6);
    expect(JSON.parse(refused.out).files[0].errors).toMatchObject([
      { path: 'steps[0].steps[0].type', code: 'not_allowed_here', line: 5 },
    ]);
  });
});
