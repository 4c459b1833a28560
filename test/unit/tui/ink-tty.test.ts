import { afterEach, describe, expect, it } from 'vitest';
import { importForTerminal } from '../../../cli/tui/ink-tty.js';

describe('importForTerminal', () => {
  const before = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  afterEach(() => {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('hides CI and CONTINUOUS_INTEGRATION while the board loads, then restores them', async () => {
    process.env.CI = 'true';
    process.env.CONTINUOUS_INTEGRATION = '1';
    const seen = await importForTerminal(async () => ({
      ci: process.env.CI,
      ci2: process.env.CONTINUOUS_INTEGRATION,
    }));
    expect(seen).toEqual({ ci: undefined, ci2: undefined });
    expect(process.env.CI).toBe('true');
    expect(process.env.CONTINUOUS_INTEGRATION).toBe('1');
  });

  it('restores them when loading fails, and adds none that were absent', async () => {
    process.env.CI = 'yes';
    delete process.env.CONTINUOUS_INTEGRATION;
    await expect(
      importForTerminal(async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(process.env.CI).toBe('yes');
    expect('CONTINUOUS_INTEGRATION' in process.env).toBe(false);
  });
});
