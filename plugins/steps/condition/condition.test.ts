// Step type condition (decision 024): an `if` and nothing that runs.
import { describeStepType } from '../../../test/support/step-tester.js';
import { conditionStep } from './condition.js';

describeStepType(conditionStep, {
  valid: [
    { def: { type: 'condition', if: '{{eq .Steps.plan.Status "succeeded"}}' } },
    { def: { id: 'only-bugs', name: 'Only bugs', type: 'condition', if: 'true' } },
    { def: { type: 'condition', if: '{{ne .Loop.Item ""}}' }, context: 'loop' },
  ],
  invalid: [
    { def: { type: 'condition' }, errors: [{ path: 'if', code: 'required' }] },
    {
      def: { type: 'condition', if: 'true', timeout: '1m' },
      errors: [{ path: 'timeout', code: 'key_not_valid_for_type' }],
    },
    {
      def: { type: 'condition', if: 'true', max_retries: 1 },
      errors: [{ path: 'max_retries', code: 'key_not_valid_for_type' }],
    },
    {
      def: { type: 'condition', if: 'true', allow_failure: true },
      errors: [{ path: 'allow_failure', code: 'key_not_valid_for_type' }],
    },
    {
      def: { type: 'condition', if: 'true' },
      context: 'parallel',
      errors: [{ path: 'type', code: 'not_allowed_here' }],
    },
    {
      def: { type: 'condition', if: '{{if .X}}' },
      errors: [{ path: 'if', code: 'template_syntax' }],
    },
  ],
});
