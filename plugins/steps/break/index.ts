/** Built-in step type `break` (decision 024). */
import { definePlugin } from '../../../kernel/plugin/index.js';
import { breakStep } from './break.js';

export default definePlugin({
  name: 'svc:steps/break',
  svc: '^2.0.0',
  setup(api) {
    api.registerStepType(breakStep);
  },
});
