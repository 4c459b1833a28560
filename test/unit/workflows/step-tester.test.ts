// The step tester is stricter than production (STYLE): it refuses duplicate cases, invalid cases
// expecting nothing and suites without a valid case, and it freezes what it validates.
import { describe, expect, it } from 'vitest';
import { commandStep } from '../../../plugins/steps/command/command.js';
import { deepFreeze, describeStepType } from '../../support/step-tester.js';

describe('step tester', () => {
  it('refuses duplicate cases', () => {
    const c = { def: { type: 'command', run: 'x' } };
    expect(() => describeStepType(commandStep, { valid: [c, { ...c }], invalid: [] })).toThrow(
      /duplicate case/,
    );
  });

  it('refuses an invalid case that expects no error, and a suite with no valid case', () => {
    expect(() =>
      describeStepType(commandStep, {
        valid: [{ def: { type: 'command', run: 'x' } }],
        invalid: [{ def: { type: 'command' }, errors: [] }],
      }),
    ).toThrow(/expects no error/);
    expect(() => describeStepType(commandStep, { valid: [], invalid: [] })).toThrow(
      /at least one valid case/,
    );
  });

  it('deep-freezes inputs', () => {
    const value = deepFreeze({ a: { b: [1, { c: 2 }] } });
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
    expect(() => {
      (value.a.b as unknown[]).push(3);
    }).toThrow();
  });
});
