/** Built-in step type `condition` (decision 024). */
import { definePlugin } from '../../../kernel/plugin/index.js';
import { conditionStep } from './condition.js';

export default definePlugin({
  name: 'svc:steps/condition',
  svc: '^2.0.0',
  setup(api) {
    api.registerStepType(conditionStep);
  },
});
