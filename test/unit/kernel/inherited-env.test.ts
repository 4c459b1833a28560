// Decision 257: the daemon's environment for the programs it starts is read whole only when it
// changed. What must hold is that a change is never missed — a set, a delete, an assignment of
// many, a replaced `process.env` — and that the real environment still changes with it.
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { collect, inheritedEnv } from '../../../kernel/launch/index.js';

const NAME = 'SVC_TEST_INHERITED_ENV';

afterEach(() => {
  delete process.env[NAME];
  delete process.env[`${NAME}_2`];
});

describe('inheritedEnv', () => {
  it('is one plain copy while the environment stays as it is', () => {
    const a = inheritedEnv();
    expect(inheritedEnv()).toBe(a);
    expect(a.PATH).toBe(process.env.PATH);
    expect(Object.isFrozen(a)).toBe(true);
  });

  it('sees a name set, assigned with others, and deleted, at once', () => {
    const before = inheritedEnv();
    process.env[NAME] = 'one';
    const set = inheritedEnv();
    expect(set).not.toBe(before);
    expect(set[NAME]).toBe('one');
    Object.assign(process.env, { [NAME]: 'two', [`${NAME}_2`]: 'three' });
    expect(inheritedEnv()[NAME]).toBe('two');
    expect(inheritedEnv()[`${NAME}_2`]).toBe('three');
    delete process.env[NAME];
    expect(NAME in inheritedEnv()).toBe(false);
  });

  it('gives a program started next what was just set, and not what was just deleted', async () => {
    process.env[NAME] = 'café';
    const r = await collect('/bin/sh', ['-c', `printf %s "$${NAME}"`]);
    expect(r.stdout).toBe('café');
    delete process.env[NAME];
    expect((await collect('/bin/sh', ['-c', `printf %s "\${${NAME}-unset}"`])).stdout).toBe(
      'unset',
    );
  });

  it('changes the real environment too, which Node’s own spawning reads', () => {
    inheritedEnv();
    process.env[NAME] = 'real';
    expect(execFileSync('/bin/sh', ['-c', `printf %s "$${NAME}"`]).toString()).toBe('real');
  });

  it('reads a replaced process.env whole', () => {
    const saved = process.env;
    try {
      process.env = { ...saved, [NAME]: 'replaced' };
      expect(inheritedEnv()[NAME]).toBe('replaced');
      process.env[NAME] = 'again';
      expect(inheritedEnv()[NAME]).toBe('again');
    } finally {
      process.env = saved;
    }
    expect(inheritedEnv()[NAME]).toBeUndefined();
  });
});
