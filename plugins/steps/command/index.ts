/** Built-in step type `command` (SPEC §2.8). */
import { definePlugin } from '../../../kernel/plugin/index.js';
import { commandStep } from './command.js';

export default definePlugin({
  name: 'svc:steps/command',
  svc: '^2.0.0',
  setup(api) {
    api.registerStepType(commandStep);
  },
});
