/** An example step type plugin (see http.ts); a user plugin picks its own name. */
import { definePlugin } from '../../../kernel/plugin/index.js';
import { httpStep } from './http.js';

export default definePlugin({
  name: 'example:http',
  svc: '^2.0.0',
  setup(api) {
    api.registerStepType(httpStep);
  },
});
