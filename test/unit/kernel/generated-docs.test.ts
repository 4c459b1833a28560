// Generated references must match the committed docs: run `npm run docs` after changing a schema or command.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cliReference } from '../../../cli/reference.js';
import { configReference } from '../../../kernel/config/index.js';

const read = (p: string) => readFileSync(new URL(`../../../${p}`, import.meta.url), 'utf8');

describe('generated docs', () => {
  it('docs/configuration.md matches the config schema', () => {
    expect(read('docs/configuration.md')).toBe(configReference());
  });
  it('docs/cli.md matches the command definitions', () => {
    expect(read('docs/cli.md')).toBe(cliReference());
  });
});
