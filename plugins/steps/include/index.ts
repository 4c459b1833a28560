/** Built-in step type `include` (decision 025). */
import { definePlugin } from '../../../kernel/plugin/index.js';
import { includeStep } from './include.js';

export default definePlugin({
  name: 'svc:steps/include',
  svc: '^2.0.0',
  setup(api) {
    api.registerStepType(includeStep);
  },
});
