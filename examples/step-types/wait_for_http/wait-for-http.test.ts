// The example step type runs the same contract suite as the built-ins.
import { describeStepType } from '../../../test/support/step-tester.js';
import { waitForHttpStep } from './wait-for-http.js';

describeStepType(waitForHttpStep, {
  valid: [
    { def: { type: 'wait_for_http', url: 'http://127.0.0.1:3000/health' } },
    {
      def: {
        id: 'up',
        type: 'wait_for_http',
        url: 'http://{{.Task.Fields.host}}/',
        status: 204,
        interval: '500ms',
        timeout: '2m',
      },
    },
    { def: { type: 'wait_for_http', url: 'https://example.test/' }, context: 'parallel' },
  ],
  invalid: [
    { def: { type: 'wait_for_http' }, errors: [{ path: 'url', code: 'required' }] },
    {
      def: { type: 'wait_for_http', url: 'ftp://x' },
      errors: [{ path: 'url', code: 'invalid_url' }],
    },
    {
      def: { type: 'wait_for_http', url: 'http://x/', interval: '0' },
      errors: [{ path: 'interval', code: 'invalid_duration' }],
    },
    {
      def: { type: 'wait_for_http', url: 'http://x/', status: 700 },
      errors: [{ path: 'status', code: 'out_of_range' }],
    },
    {
      def: { id: 'w', type: 'wait_for_http', url: 'http://x/' },
      context: 'merge',
      errors: [{ path: 'type', code: 'not_allowed_here' }],
    },
  ],
});
