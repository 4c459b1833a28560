/** Built-in step type `manual` (SPEC §2.8). */
import { definePlugin } from '../../../kernel/plugin/index.js';
import { manualStep } from './manual.js';

export default definePlugin({
  name: 'svc:steps/manual',
  svc: '^2.0.0',
  setup(api) {
    api.registerStepType(manualStep);
  },
});
