/** Built-in step type `loop` (decision 024). */
import { definePlugin } from '../../../kernel/plugin/index.js';
import { loopStep } from './loop.js';

export default definePlugin({
  name: 'svc:steps/loop',
  svc: '^2.0.0',
  setup(api) {
    api.registerStepType(loopStep);
  },
});
