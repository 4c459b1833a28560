// Step type loop (decision 024): one driver, the ceiling, the body's nesting rules.
import { describeStepType } from '../../../test/support/step-tester.js';
import { loopStep } from './loop.js';

const body = [
  { id: 'fix', type: 'agent', prompt: 'fix {{.Loop.Item}}' },
  { id: 'test', type: 'command', run: 'make test' },
  { id: 'stop', type: 'break', if: '{{eq .Steps.test.Status "succeeded"}}' },
];

describeStepType(loopStep, {
  valid: [
    { def: { type: 'loop', count: 3, steps: body } },
    { def: { type: 'loop', count: 10, steps: body } },
    { def: { type: 'loop', count: 25, max_iterations: 30, steps: body } },
    { def: { type: 'loop', for_each: '{{.Steps.list.Result}}', steps: body } },
    {
      def: {
        id: 'each',
        type: 'loop',
        for_each: ['api', 'web', '{{.Task.Fields.extra}}'],
        max_iterations: 5,
        if: 'true',
        timeout: '2h',
        steps: [
          { type: 'condition', if: '{{ne .Item "skip"}}' },
          { type: 'include', workflow: 'per-item' },
          ...body.slice(0, 2),
        ],
      },
    },
    { def: { type: 'loop', count: 20, steps: body }, limits: { loop_max_iterations: 20 } },
  ],
  invalid: [
    { def: { type: 'loop', steps: body }, errors: [{ path: '', code: 'loop_driver' }] },
    {
      def: { type: 'loop', count: 2, for_each: 'a', steps: body },
      errors: [{ path: 'for_each', code: 'loop_driver' }],
    },
    {
      def: { type: 'loop', count: 11, steps: body },
      errors: [{ path: 'count', code: 'count_over_ceiling' }],
    },
    {
      def: { type: 'loop', count: 6, max_iterations: 5, steps: body },
      errors: [{ path: 'count', code: 'count_over_ceiling' }],
    },
    {
      def: { type: 'loop', count: 0, steps: body },
      errors: [{ path: 'count', code: 'out_of_range' }],
    },
    {
      def: { type: 'loop', count: 1.5, steps: body },
      errors: [{ path: 'count', code: 'invalid_type' }],
    },
    { def: { type: 'loop', count: 1 }, errors: [{ path: 'steps', code: 'required' }] },
    {
      def: { type: 'loop', for_each: [], steps: body },
      errors: [{ path: 'for_each', code: 'empty' }],
    },
    {
      def: { type: 'loop', for_each: 'a', max_retries: 1, steps: body },
      errors: [{ path: 'max_retries', code: 'key_not_valid_for_type' }],
    },
    {
      def: { type: 'loop', for_each: 'a', retry_backoff: '1m', steps: body },
      errors: [{ path: 'retry_backoff', code: 'key_not_valid_for_type' }],
    },
    {
      def: { type: 'loop', for_each: '{{range}}', steps: body },
      errors: [{ path: 'for_each', code: 'template_syntax' }],
    },
    {
      def: { type: 'loop', for_each: ['ok', '{{.X'], steps: body },
      errors: [{ path: 'for_each[1]', code: 'template_syntax' }],
    },
    ...['manual', 'parallel', 'loop', 'fan_out'].map((type) => ({
      def: {
        type: 'loop',
        count: 1,
        steps: [
          {
            type,
            ...(type === 'manual' ? { instructions: 'x' } : {}),
            ...(type === 'parallel' || type === 'loop'
              ? { steps: [{ id: `in-${type}`, type: 'command', run: 'x' }] }
              : {}),
            ...(type === 'loop' ? { count: 1 } : {}),
            ...(type === 'fan_out' ? { lanes: [{ id: 'l', workflow: 'w' }] } : {}),
          },
        ],
      },
      errors: [{ path: 'steps[0].type', code: 'not_allowed_here' }],
    })),
    {
      def: { type: 'loop', count: 1, steps: [{ type: 'agent', prompt: 'x', on_input: 'require' }] },
      errors: [{ path: 'steps[0].on_input', code: 'input_required_here' }],
    },
    {
      def: { type: 'loop', count: 1, steps: body },
      context: 'parallel',
      errors: [{ path: 'type', code: 'not_allowed_here' }],
    },
  ],
});
