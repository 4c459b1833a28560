// Step type include (decision 025): a workflow name and nothing else; resolution is at creation.
import { describeStepType } from '../../../test/support/step-tester.js';
import { includeStep } from './include.js';

describeStepType(includeStep, {
  valid: [
    { def: { type: 'include', workflow: 'shared-tests' } },
    { def: { id: 'checks', name: 'Checks', type: 'include', workflow: 'checks' } },
    { def: { type: 'include', workflow: 'checks' }, context: 'parallel' },
    { def: { type: 'include', workflow: 'checks' }, context: 'loop' },
  ],
  invalid: [
    { def: { type: 'include' }, errors: [{ path: 'workflow', code: 'required' }] },
    {
      def: { type: 'include', workflow: 'has space' },
      errors: [{ path: 'workflow', code: 'invalid_format' }],
    },
    {
      def: { type: 'include', workflow: 'x', if: 'true' },
      errors: [{ path: 'if', code: 'key_not_valid_for_type' }],
    },
    {
      def: { type: 'include', workflow: 'x', max_retries: 2 },
      errors: [{ path: 'max_retries', code: 'key_not_valid_for_type' }],
    },
    {
      def: { type: 'include', workflow: 'x', resolved_from: ['x'] },
      errors: [{ path: 'resolved_from', code: 'unknown_key' }],
    },
    {
      def: { id: 'r', type: 'include', workflow: 'x' },
      context: 'merge',
      errors: [{ path: 'type', code: 'not_allowed_here' }],
    },
  ],
});
