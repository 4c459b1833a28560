/** Regenerates the generated reference pages in docs/ (`npm run docs`). */
import { writeFileSync } from 'node:fs';
import { cliReference } from '../cli/reference.js';
import { configReference } from '../kernel/config/index.js';

const root = new URL('../../', import.meta.url);
writeFileSync(new URL('docs/configuration.md', root), configReference());
writeFileSync(new URL('docs/cli.md', root), cliReference());
process.stdout.write('wrote docs/configuration.md and docs/cli.md\n');
