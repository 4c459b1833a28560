/**
 * The contract suite every forge runs: its plugin registers exactly it, `detect` answers its
 * cases (and null for other hosts and garbage, never a throw), and with no credential in sight
 * `connect` answers `unauthenticated` as a value. Cases are data:
 *
 *   describeForge(githubForge, { plugin, detect: [['git@github.com:o/r.git', 'o/r'], ...] });
 */
import { describe, expect, it } from 'vitest';
import type { Forge, ForgeContext, PluginApi, SvcPlugin } from '../../kernel/plugin/index.js';

export interface ForgeCases {
  plugin: SvcPlugin;
  /** Remote URL, then the `owner/name` it names or null. */
  detect: Array<[string, string | null, Record<string, string>?]>;
}

/** A forge context with nothing installed and no credential. */
export function bareForgeContext(over: Partial<ForgeContext> = {}): ForgeContext {
  return {
    env: {},
    run: async () => ({ code: null, stdout: '', stderr: '', spawnError: 'ENOENT: not installed' }),
    fetch: async () => {
      throw new Error('no network in this test');
    },
    ...over,
  };
}

export function describeForge(forge: Forge, cases: ForgeCases): void {
  describe(`forge ${forge.name} (contract)`, () => {
    it('is registered by its plugin under its own name', async () => {
      const got: Forge[] = [];
      const api: PluginApi = {
        registerAgent: () => {
          throw new Error('a forge plugin registers no agent');
        },
        registerStepType: () => {
          throw new Error('a forge plugin registers no step type');
        },
        registerTriggerSource: () => {
          throw new Error('a forge plugin registers no trigger source');
        },
        registerForge: (f) => got.push(f),
      };
      await cases.plugin.setup(api);
      expect(got).toEqual([forge]);
      if (cases.plugin.name.startsWith('svc:'))
        expect(cases.plugin.name).toBe(`svc:forge/${forge.name}`);
    });

    it.each(cases.detect)('detect(%j) names %j', (url, full, env) => {
      expect(forge.detect(url, env)?.full_name ?? null).toBe(full);
    });

    it('never throws on garbage remotes', () => {
      for (const url of [
        '',
        ' ',
        'not a url',
        '/local/path.git',
        'file:///x/y.git',
        '::::',
        'https://',
      ])
        expect(forge.detect(url)).toBeNull();
    });

    it('answers unauthenticated as a value when no credential is in sight', async () => {
      const repo = forge.detect(cases.detect.find((c) => c[1] !== null)?.[0] ?? '');
      expect(repo).not.toBeNull();
      const r = await forge.connect?.(repo as NonNullable<typeof repo>, bareForgeContext());
      expect(r).toMatchObject({ ok: false, reason: 'unauthenticated' });
    });
  });
}
