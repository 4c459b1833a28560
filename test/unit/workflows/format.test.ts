// Issue 3 point 2: the file format of SPEC §2.8 — top level, durations, unknown keys, ids across
// the whole file, findings with paths and lines sorted by line, and decision 023's derived ids.
import { describe, expect, it } from 'vitest';
import { MAX_WORKFLOW_BYTES, platformAdmits } from '../../../kernel/workflows/index.js';
import { withDerivedIds } from '../../../kernel/workflows/tree.js';
import { builtinStepTypes } from '../../support/step-tester.js';
import { check, codes, yaml } from './support.js';

const ONE_STEP = ['steps:', '  - id: a', '    type: command', '    run: make'];

describe('top level', () => {
  it('accepts a minimal workflow and serves it as authored', async () => {
    const r = await check(yaml('name: minimal', ...ONE_STEP));
    expect(r.errors).toEqual([]);
    expect(r.definition).toEqual({
      name: 'minimal',
      steps: [{ id: 'a', type: 'command', run: 'make' }],
    });
    expect(r.declaredName).toBe('minimal');
  });

  it('requires name and steps, and steps non-empty', async () => {
    expect(codes(await check(yaml('description: x', ...ONE_STEP)))).toEqual(['name required']);
    expect(codes(await check(yaml('name: x')))).toEqual(['steps required']);
    expect(codes(await check(yaml('name: x', 'steps: []')))).toEqual(['steps empty']);
  });

  it('refuses names with whitespace or slashes', async () => {
    expect(codes(await check(yaml('name: a b', ...ONE_STEP)))).toEqual(['name invalid_format']);
    expect(codes(await check(yaml('name: a/b', ...ONE_STEP)))).toEqual(['name invalid_format']);
  });

  it('rejects unknown keys at every level, by name', async () => {
    const r = await check(
      yaml(
        'name: x',
        'colour: red',
        'defaults:',
        '  agent: claude',
        '  colour: red',
        ...ONE_STEP,
        '    colour: red',
      ),
    );
    expect(codes(r)).toEqual([
      'colour unknown_key',
      'defaults.colour unknown_key',
      'steps[0].colour unknown_key',
    ]);
    expect(r.errors[0]?.message).toContain('colour');
    expect(r.definition).toBeNull();
  });

  it('checks platform tokens exactly (macos is an error) but never the host', async () => {
    expect(
      (await check(yaml('name: x', 'platforms: [linux, darwin, windows, posix]', ...ONE_STEP)))
        .errors,
    ).toEqual([]);
    const r = await check(yaml('name: x', 'platforms: [linux, macos, Linux]', ...ONE_STEP));
    expect(codes(r)).toEqual(['platforms[1] platform_token', 'platforms[2] platform_token']);
    expect(r.errors[0]?.message).toMatch(/darwin/);
    expect((await check(yaml('name: x', 'platforms: [windows]', ...ONE_STEP))).errors).toEqual([]);
  });

  it('admits hosts by token: posix is every non-Windows host, empty is anywhere', () => {
    expect(platformAdmits([], { os: 'windows' })).toBe(true);
    expect(platformAdmits(['posix'], { os: 'darwin' })).toBe(true);
    expect(platformAdmits(['posix'], { os: 'windows' })).toBe(false);
    expect(platformAdmits(['linux'], { os: 'darwin' })).toBe(false);
    expect(platformAdmits(['windows', 'darwin'], { os: 'darwin' })).toBe(true);
  });

  it('takes durations like 45m, 1h30m and 90s, and refuses others', async () => {
    for (const d of ['45m', '1h30m', '90s', '500ms', '2h']) {
      expect(
        (await check(yaml('name: x', 'defaults:', `  timeout: ${d}`, ...ONE_STEP))).errors,
        d,
      ).toEqual([]);
    }
    for (const d of ['"45"', '1d', 'forever', '"0"', '-5m', '"1 h"']) {
      expect(
        codes(await check(yaml('name: x', 'defaults:', `  timeout: ${d}`, ...ONE_STEP))),
        d,
      ).toEqual(['defaults.timeout invalid_duration']);
    }
    expect(
      (await check(yaml('name: x', 'defaults:', '  retry_backoff: 0s', ...ONE_STEP))).errors,
    ).toEqual([]);
    // A bare number is not a duration string.
    expect(codes(await check(yaml('name: x', 'defaults:', '  timeout: 45', ...ONE_STEP)))).toEqual([
      'defaults.timeout invalid_type',
    ]);
  });

  it('validates every defaults key and keeps defaults separate from steps', async () => {
    const r = await check(
      yaml(
        'name: x',
        'defaults:',
        '  agent: claude',
        '  model: opus',
        '  effort: high',
        '  permission_mode: restricted',
        '  on_input: deny',
        '  input_timeout: 1h',
        '  max_retries: 0',
        '  retry_backoff: 1m',
        '  timeout: 2h',
        '  container:',
        '    image: node:22',
        '    network: false',
        '    extra_mounts: ["/a:/b:ro"]',
        'steps:',
        '  - type: agent',
        '    prompt: x',
      ),
    );
    expect(r.errors).toEqual([]);
    expect(r.definition?.steps).toEqual([{ type: 'agent', prompt: 'x' }]);
    expect(r.definition?.defaults?.agent).toBe('claude');
    const bad = await check(
      yaml(
        'name: x',
        'defaults:',
        '  agent: gemini',
        '  allow_failure: true',
        '  container:',
        '    image: 3',
        ...ONE_STEP,
      ),
    );
    expect(codes(bad)).toEqual([
      'defaults.agent unknown_agent',
      'defaults.allow_failure unknown_key',
      'defaults.container.image invalid_type',
    ]);
  });

  it('refuses a step without type or with an unknown one, and a step that is not a mapping', async () => {
    const r = await check(
      yaml('name: x', 'steps:', '  - id: a', '  - type: teleport', '  - just text'),
    );
    expect(codes(r)).toEqual([
      'steps[0].type required',
      'steps[1].type unknown_step_type',
      'steps[2] invalid_type',
    ]);
    expect(r.errors[1]?.message).toMatch(/known: agent, break, command/);
  });
});

describe('step ids', () => {
  it('are unique across the file, sub-steps, loop bodies, lane steps and resolvers included (decision 023)', async () => {
    const r = await check(
      yaml(
        'name: x',
        'steps:',
        '  - id: a',
        '    type: command',
        '    run: make',
        '  - type: parallel',
        '    steps:',
        '      - id: a',
        '        type: command',
        '        run: make',
        '  - type: loop',
        '    count: 2',
        '    steps:',
        '      - id: a',
        '        type: command',
        '        run: make',
        '  - id: fan',
        '    type: fan_out',
        '    lanes:',
        '      - id: l1',
        '        steps:',
        '          - id: a',
        '            type: command',
        '            run: make',
        '    merge:',
        '      on_conflict: agent',
        '      agent:',
        '        id: fan',
        '        prompt: fix',
      ),
    );
    expect(codes(r)).toEqual([
      'steps[1].steps[0].id duplicate_id',
      'steps[2].steps[0].id duplicate_id',
      'steps[3].lanes[0].steps[0].id duplicate_id',
      'steps[3].merge.agent.id duplicate_id',
    ]);
    expect(r.errors[0]?.message).toContain('steps[0]');
  });

  it('are slugs', async () => {
    expect(
      codes(
        await check(
          yaml('name: x', 'steps:', '  - id: Build_1', '    type: command', '    run: x'),
        ),
      ),
    ).toEqual(['steps[0].id invalid_format']);
    expect(
      codes(await check(yaml('name: x', 'steps:', '  - id: 7', '    type: command', '    run: x'))),
    ).toEqual(['steps[0].id invalid_type']);
  });

  it('are derived for steps without one: <type>-<n>, prefixed below, never clashing', async () => {
    const types = await builtinStepTypes();
    const steps = withDerivedIds<Record<string, unknown>>(
      [
        { type: 'command', run: 'a' },
        { id: 'command-1-x', type: 'command', run: 'b' },
        {
          id: 'checks',
          type: 'parallel',
          steps: [
            { type: 'agent', prompt: 'p' },
            { id: 'keep', type: 'command', run: 'c' },
          ],
        },
        { type: 'fan_out', lanes: [{ id: 'api', steps: [{ type: 'command', run: 'd' }] }] },
        { id: 'command-5', type: 'manual', instructions: 'i' },
        { type: 'command', run: 'e' },
      ],
      types,
    );
    expect(steps.map((s) => s.id)).toEqual([
      'command-1',
      'command-1-x',
      'checks',
      'fan_out-4',
      'command-5',
      'command-6',
    ]);
    expect(
      (steps[2] as unknown as { steps: Array<{ id: string }> }).steps.map((s) => s.id),
    ).toEqual(['checks.agent-1', 'keep']);
    expect(
      (steps[3] as unknown as { lanes: Array<{ steps: Array<{ id: string }> }> }).lanes[0]?.steps[0]
        ?.id,
    ).toBe('fan_out-4.api.command-1');
    const clash = withDerivedIds(
      [
        { type: 'command', run: 'a' },
        { id: 'command-1', type: 'command', run: 'b' },
      ],
      types,
    );
    expect(clash.map((s) => s.id)).toEqual(['command-1-2', 'command-1']);
  });
});

describe('findings', () => {
  it('carry path, code and line, sorted by line', async () => {
    const r = await check(
      yaml(
        'name: x',
        'steps:',
        '  - id: late',
        '    type: command',
        '    run: make',
        '    shell: zsh',
        '  - id: early',
        '    type: agent',
        '    prompt: "{{.Task.Title"',
        'defaults:',
        '  timeout: soon',
      ),
    );
    expect(r.errors.map((f) => [f.line, f.path, f.code])).toEqual([
      [6, 'steps[0].shell', 'invalid_value'],
      [9, 'steps[1].prompt', 'template_syntax'],
      [11, 'defaults.timeout', 'invalid_duration'],
    ]);
  });

  it('report YAML syntax errors with their line, and duplicate keys', async () => {
    const r = await check(yaml('name: x', 'steps:', '  - id: a', '     type: [', ''));
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]?.code).toBe('yaml_syntax');
    expect(r.errors[0]?.line).toBeGreaterThanOrEqual(3);
    expect(r.definition).toBeNull();
    const dup = await check(yaml('name: x', 'name: y', ...ONE_STEP));
    expect(dup.errors.map((f) => [f.code, f.line])).toEqual([['yaml_syntax', 2]]);
  });

  it('refuse a file that is not a mapping, or over 1 MiB', async () => {
    expect(codes(await check('- a\n- b\n'))).toEqual([' invalid_type']);
    const big = yaml('name: x', ...ONE_STEP, `# ${'x'.repeat(MAX_WORKFLOW_BYTES)}`);
    expect(codes(await check(big))).toEqual([' too_large']);
  });

  it('keep the unvalidated name of an invalid file', async () => {
    const r = await check(yaml('name: broken', 'steps: 3'));
    expect(r.declaredName).toBe('broken');
    expect(r.definition).toBeNull();
  });
});
