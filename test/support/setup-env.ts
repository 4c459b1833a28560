/**
 * Runs before every test file (vitest `setupFiles`). `npm test` puts node_modules/.bin on PATH,
 * and the real `claude` and `codex` CLIs are devDependencies: a daemon under test that resolves an
 * agent from PATH would find them and call a real model API. Tests name their agent binaries
 * explicitly (the fakes in test/fixtures/fake-agents, or the real ones against the mock model
 * servers), so node_modules/.bin is taken off PATH here (decision 048).
 */
import { delimiter, sep } from 'node:path';

const bin = `${sep}node_modules${sep}.bin`;
process.env.PATH = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((d) => !d.replace(/[/\\]+$/, '').endsWith(bin))
  .join(delimiter);
