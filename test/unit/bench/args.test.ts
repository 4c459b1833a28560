// `npm run bench` reads its command line strictly: a full run takes a quarter of an hour, so a
// mistyped option or section is refused at once, naming it, rather than ignored (which ran the
// whole bench for `--help` or `--onyl output`).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseBenchArgs, SECTIONS } from '../../../bench/lib/args.js';

const BUILT = fileURLToPath(new URL('../../../dist/bench/run.js', import.meta.url));

describe('the bench command line', () => {
  it('reads every option it documents', () => {
    expect(
      parseBenchArgs([
        '--quick',
        '--only',
        'api,output',
        '--json',
        'out.json',
        '--profile',
        'p.cpuprofile',
        '--output-size',
        '16x5',
      ]),
    ).toEqual({
      quick: true,
      only: new Set(['api', 'output']),
      json: 'out.json',
      profile: 'p.cpuprofile',
      outputSize: { steps: 16, rounds: 5 },
      help: false,
    });
    expect(parseBenchArgs([])).toEqual({ quick: false, only: null, help: false });
    expect(parseBenchArgs(['-h'])).toMatchObject({ help: true });
  });

  it('refuses an unknown option, a positional, an unknown section and a bad size, naming each', () => {
    const error = (argv: string[]) => {
      const r = parseBenchArgs(argv);
      return 'error' in r ? r.error : null;
    };
    expect(error(['--onyl', 'output'])).toMatch(/--onyl/);
    expect(error(['output'])).toMatch(/output/);
    expect(error(['--only', 'api,ouptut'])).toBe(
      `--only names an unknown section: ouptut (sections: ${SECTIONS.join(', ')})`,
    );
    expect(error(['--only', ','])).toMatch(/--only needs a section/);
    expect(error(['--only'])).toMatch(/--only/);
    expect(error(['--output-size', '16'])).toMatch(/--output-size must be <steps>x<rounds>/);
    expect(error(['--output-size', '0x5'])).toMatch(/got 0x5/);
  });

  it('answers --help and a typo at once, with the exit codes', () => {
    const help = spawnSync(process.execPath, [BUILT, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run bench/);
    const typo = spawnSync(process.execPath, [BUILT, '--onyl', 'output'], { encoding: 'utf8' });
    expect(typo.status).toBe(2);
    expect(typo.stderr).toMatch(/^bench: .*--onyl/);
    expect(typo.stdout).toBe('');
  });
});
