/**
 * An example agent adapter plugin: teaches svc the `parrot-agent` CLI (fake-cli/parrot-agent,
 * a stand-in that repeats the prompt). Load it with `plugins: [<path to this folder>]` and point
 * `agents.parrot.path` at the binary; docs/adding-an-agent.md explains each part.
 */
import { definePlugin } from '../../kernel/plugin/index.js';
import { parrotAdapter } from './adapter.js';

export default definePlugin({
  name: 'example:agents/parrot',
  svc: '^2.0.0',
  setup(api) {
    api.registerAgent(parrotAdapter);
  },
});
