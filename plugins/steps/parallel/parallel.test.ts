// Step type parallel (SPEC §2.8): agent and command sub-steps only, judged on resolved on_input.
import { describeStepType } from '../../../test/support/step-tester.js';
import { parallelStep } from './parallel.js';

const cmd = (id: string) => ({ id, type: 'command', run: 'make' });

describeStepType(parallelStep, {
  valid: [
    { def: { type: 'parallel', steps: [cmd('a'), { id: 'b', type: 'agent', prompt: 'x' }] } },
    {
      def: {
        id: 'checks',
        type: 'parallel',
        steps: [cmd('lint'), cmd('test'), { type: 'include', workflow: 'more-checks' }],
        max_parallel: 2,
        if: 'true',
        timeout: '30m',
        max_retries: 1,
        retry_backoff: '1m',
      },
    },
    {
      def: { type: 'parallel', steps: [{ type: 'agent', prompt: 'x', on_input: 'wait' }] },
      defaults: { on_input: 'require' },
    },
  ],
  invalid: [
    { def: { type: 'parallel' }, errors: [{ path: 'steps', code: 'required' }] },
    { def: { type: 'parallel', steps: [] }, errors: [{ path: 'steps', code: 'empty' }] },
    {
      def: { type: 'parallel', steps: [cmd('a')], max_parallel: 0 },
      errors: [{ path: 'max_parallel', code: 'out_of_range' }],
    },
    {
      def: { type: 'parallel', steps: [cmd('a')], allow_failure: true },
      errors: [{ path: 'allow_failure', code: 'key_not_valid_for_type' }],
    },
    ...['manual', 'parallel', 'loop', 'fan_out', 'condition', 'break'].map((type) => ({
      def: {
        type: 'parallel',
        steps: [
          cmd('a'),
          {
            type,
            ...(type === 'manual' ? { instructions: 'x' } : {}),
            ...(type === 'condition' || type === 'break' ? { if: 'true' } : {}),
            ...(type === 'parallel' || type === 'loop' ? { steps: [cmd(`in-${type}`)] } : {}),
            ...(type === 'loop' ? { count: 1 } : {}),
            ...(type === 'fan_out' ? { lanes: [{ id: 'l', workflow: 'w' }] } : {}),
          },
        ],
      },
      errors: [{ path: 'steps[1].type', code: 'not_allowed_here' }],
    })),
    {
      def: { type: 'parallel', steps: [{ type: 'agent', prompt: 'x', on_input: 'require' }] },
      errors: [{ path: 'steps[0].on_input', code: 'input_required_here' }],
    },
    {
      def: { type: 'parallel', steps: [{ type: 'agent', prompt: 'x' }] },
      defaults: { on_input: 'require' },
      errors: [{ path: '$.defaults.on_input', code: 'input_required_here' }],
    },
    {
      def: { type: 'parallel', steps: [cmd('same'), cmd('same')] },
      errors: [{ path: 'steps[1].id', code: 'duplicate_id' }],
    },
    {
      def: { type: 'parallel', steps: [cmd('a')] },
      context: 'loop',
      errors: [{ path: 'type', code: 'not_allowed_here' }],
    },
    {
      def: { type: 'parallel', steps: ['make test'] },
      errors: [{ path: 'steps[0]', code: 'invalid_type' }],
    },
  ],
});
