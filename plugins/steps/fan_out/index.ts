/** Built-in step type `fan_out` (SPEC §2.8). */
import { definePlugin } from '../../../kernel/plugin/index.js';
import { fanOutStep } from './fan-out.js';

export default definePlugin({
  name: 'svc:steps/fan_out',
  svc: '^2.0.0',
  setup(api) {
    api.registerStepType(fanOutStep);
  },
});
