/** Built-in step type `parallel` (SPEC §2.8). */
import { definePlugin } from '../../../kernel/plugin/index.js';
import { parallelStep } from './parallel.js';

export default definePlugin({
  name: 'svc:steps/parallel',
  svc: '^2.0.0',
  setup(api) {
    api.registerStepType(parallelStep);
  },
});
