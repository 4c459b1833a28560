/** Built-in step type `agent` (SPEC §2.8). */
import { definePlugin } from '../../../kernel/plugin/index.js';
import { agentStep } from './agent.js';

export default definePlugin({
  name: 'svc:steps/agent',
  svc: '^2.0.0',
  setup(api) {
    api.registerStepType(agentStep);
  },
});
