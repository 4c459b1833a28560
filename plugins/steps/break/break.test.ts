// Step type break (decision 024): only directly in a loop body.
import { describeStepType } from '../../../test/support/step-tester.js';
import { breakStep } from './break.js';

describeStepType(breakStep, {
  valid: [
    { def: { type: 'break', if: '{{eq .Steps.test.Status "succeeded"}}' }, context: 'loop' },
    { def: { id: 'done', name: 'Done', type: 'break', if: 'true' }, context: 'loop' },
  ],
  invalid: [
    {
      def: { type: 'break', if: 'true' },
      errors: [{ path: 'type', code: 'not_allowed_here' }],
    },
    {
      def: { type: 'break', if: 'true' },
      context: 'parallel',
      errors: [{ path: 'type', code: 'not_allowed_here' }],
    },
    { def: { type: 'break' }, context: 'loop', errors: [{ path: 'if', code: 'required' }] },
    {
      def: { type: 'break', if: 'true', timeout: '1m' },
      context: 'loop',
      errors: [{ path: 'timeout', code: 'key_not_valid_for_type' }],
    },
    {
      def: { type: 'break', if: '{{' },
      context: 'loop',
      errors: [{ path: 'if', code: 'template_syntax' }],
    },
  ],
});
