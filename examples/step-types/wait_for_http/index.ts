/** An example step type plugin (see wait-for-http.ts); a user plugin picks its own name. */
import { definePlugin } from '../../../kernel/plugin/index.js';
import { waitForHttpStep } from './wait-for-http.js';

export default definePlugin({
  name: 'example:wait_for_http',
  svc: '^2.0.0',
  setup(api) {
    api.registerStepType(waitForHttpStep);
  },
});
