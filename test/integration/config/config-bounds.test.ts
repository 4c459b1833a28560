// Issue 17 hold 3 (decision 187): config parsing never throws past its boundary. An alias bomb,
// deep nesting, a huge file or an empty file written while the daemon runs is refused like any
// invalid edit (logged, last good kept, doctor reports it, PATCH refuses to overwrite it; see
// test/integration/faults/corrupt-config.test.ts for the files that do not parse at all). At
// start-up each is fatal with a message naming the file and the limit; an empty config.yaml is
// refused unless it is the daemon's first start, where it is replaced by the commented default.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../../../kernel/config/index.js';
import type { DoctorReport } from '../../../kernel/ops/index.js';
import { buildTestApp } from '../../support/app.js';
import { tempDir } from '../../support/tmp.js';

const bomb = () => {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 12; i++) {
    const prev = String.fromCharCode(96 + i);
    const name = String.fromCharCode(97 + i);
    lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
  }
  return `${lines.join('\n')}\n`;
};

const HOSTILE: Array<[string, string]> = [
  ['an alias bomb', bomb()],
  ['flow nesting 100,000 deep', `x: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`],
  [
    'block nesting 40 deep',
    `${Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n')} 1\n`,
  ],
  ['a line indented 600 columns', `a:\n${' '.repeat(600)}b: 1\n`],
  ['a 2 MB file', `max_parallel_tasks: 2\n# ${'x'.repeat(2 * 1024 * 1024)}\n`],
  ['an empty file (an editor truncating before it writes)', ''],
  ['only blanks', '  \n\n'],
];

describe('config.yaml edited while the daemon runs', () => {
  it('refuses each hostile file like any invalid edit: logged, last good kept, doctor shows it', async () => {
    const t = await buildTestApp({ config: 'max_parallel_tasks: 2\n' });
    const config = t.kernel.services.config;
    const good = structuredClone(config.current());
    const rejected = () =>
      readFileSync(t.paths.logFile, 'utf8')
        .split('\n')
        .filter((l) => l.includes('config edit rejected')).length;
    for (const [name, text] of HOSTILE) {
      const before = rejected();
      writeFileSync(t.paths.configFile, text);
      expect(() => config.reloadFromFile(), name).not.toThrow();
      expect(rejected(), name).toBe(before + 1);
      expect(config.current(), name).toEqual(good);
      const doctor = await t.json<DoctorReport>('GET', '/v1/doctor?probe=false');
      expect(
        doctor.problems.map((p) => p.code),
        name,
      ).toContain('config_unparseable');
      const patch = await t.api(
        'PATCH',
        '/v1/config',
        { max_parallel_tasks: 3 },
        {
          'content-type': 'application/json',
        },
      );
      expect(patch.statusCode, name).toBe(400);
      expect(readFileSync(t.paths.configFile, 'utf8'), name).toBe(text);
    }
  }, 120_000);
});

describe('config.yaml at start-up', () => {
  it.each([
    ['an alias bomb', bomb(), /Excessive alias count/],
    [
      'flow nesting 100,000 deep',
      `x: ${'{a: '.repeat(100_000)}1${'}'.repeat(100_000)}\n`,
      /deeper than 32 levels/,
    ],
    [
      'block nesting 40 deep',
      `${Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n')} 1\n`,
      /deeper than 32 levels/,
    ],
    ['a 2 MB file', `# ${'x'.repeat(2 * 1024 * 1024)}\n`, /over the limit of 1048576/],
  ])('refuses %s with a ConfigError naming the file', async (_what, text, message) => {
    const start = buildTestApp({ config: text });
    await expect(start).rejects.toThrow(ConfigError);
    await expect(buildTestApp({ config: text })).rejects.toThrow(message);
    await expect(buildTestApp({ config: text })).rejects.toThrow(
      /invalid configuration in .*config\.yaml/,
    );
  });

  it('replaces an empty file with the commented default on the first start only', async () => {
    const root = tempDir();
    const first = await buildTestApp({ root, config: '', keepOpen: true });
    expect(readFileSync(first.paths.configFile, 'utf8')).toMatch(/^# svc configuration/);
    expect(first.kernel.services.config.current().max_parallel_tasks).toBeGreaterThan(0);
    await first.close();
    writeFileSync(first.paths.configFile, '');
    await expect(buildTestApp({ root, config: '' })).rejects.toThrow(/config\.yaml is empty/);
  });

  it('still takes a file of comments alone as all defaults', () => {
    const load = parseConfigText('# every key at its default\n');
    expect(load.ok).toBe(true);
  });
});
