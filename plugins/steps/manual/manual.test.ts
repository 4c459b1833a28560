// Step type manual (SPEC §2.8): a gate with instructions; only at the top of a body.
import { describeStepType } from '../../../test/support/step-tester.js';
import { manualStep } from './manual.js';

describeStepType(manualStep, {
  valid: [
    { def: { type: 'manual', instructions: 'Review the diff of {{.Task.Title}}' } },
    {
      def: {
        id: 'gate',
        type: 'manual',
        instructions: 'ok?',
        if: '{{ne .Task.Fields.kind "docs"}}',
        timeout: '48h',
        max_retries: 0,
        retry_backoff: '0s',
      },
    },
  ],
  invalid: [
    { def: { type: 'manual' }, errors: [{ path: 'instructions', code: 'required' }] },
    {
      def: { type: 'manual', instructions: 'x', allow_failure: true },
      errors: [{ path: 'allow_failure', code: 'key_not_valid_for_type' }],
    },
    {
      def: { type: 'manual', instructions: 'x', check: 'make' },
      errors: [{ path: 'check', code: 'key_not_valid_for_type' }],
    },
    {
      def: { type: 'manual', instructions: 'x' },
      context: 'parallel',
      errors: [{ path: 'type', code: 'not_allowed_here' }],
    },
    {
      def: { type: 'manual', instructions: 'x' },
      context: 'loop',
      errors: [{ path: 'type', code: 'not_allowed_here' }],
    },
    {
      def: { type: 'manual', instructions: '{{if}}' },
      errors: [{ path: 'instructions', code: 'template_syntax' }],
    },
  ],
});
