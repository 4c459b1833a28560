/**
 * Plugin discovery (ARCHITECTURE "discover.ts"). At start-up: every built-in folder
 * `plugins/<kind>/<id>/index` (and `plugins/<id>/index` for single-folder plugins such as mcp),
 * sorted so discovery order never changes behaviour, then every module named by the config's
 * `plugins:` list. Each module's default export must be a plugin object; its declared `svc` range
 * must accept this plugin API; a duplicate name or a throwing `setup` stops start-up with a
 * message naming the plugin and the file it came from.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import semver from 'semver';
import { importExternal } from '../../shared/host.js';
import { type BundledPlugin, bundledPlugins } from './bundled.js';
import { PLUGIN_API_VERSION, type PluginApi, type SvcPlugin } from './define.js';
import { PluginError, type Registry } from './registry.js';
import { bundleTypeScriptPlugin, needsBundle } from './ts-load.js';

const BUILTIN_ROOT = fileURLToPath(new URL('../../plugins/', import.meta.url));

function indexIn(dir: string): string | null {
  for (const name of ['index.js', 'index.ts', 'index.mjs']) {
    const p = join(dir, name);
    if (existsSync(p)) return p;
  }
  return null;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Files of the built-in plugins, sorted by path. */
export function builtinPluginFiles(root = BUILTIN_ROOT): string[] {
  if (!isDir(root)) return [];
  const files: string[] = [];
  for (const top of readdirSync(root).sort()) {
    const dir = join(root, top);
    if (!isDir(dir)) continue;
    const own = indexIn(dir);
    if (own) {
      files.push(own);
      continue;
    }
    for (const name of readdirSync(dir).sort()) {
      const sub = join(dir, name);
      const idx = isDir(sub) ? indexIn(sub) : null;
      if (idx) files.push(idx);
    }
  }
  return files;
}

/** Resolves a `plugins:` entry (a file, or a folder with an index) relative to the config dir. */
export function resolvePluginPath(entry: string, configDir: string): string {
  const p = isAbsolute(entry) ? entry : resolve(configDir, entry);
  if (isDir(p)) {
    const idx = indexIn(p);
    if (!idx) throw new PluginError(`plugin folder ${p} (from plugins: in config) has no index.js`);
    return idx;
  }
  if (!existsSync(p))
    throw new PluginError(`plugin ${entry} (from plugins: in config) does not exist: ${p}`);
  return p;
}

function asPlugin(mod: unknown, file: string): SvcPlugin {
  const candidate = (mod as { default?: unknown })?.default ?? mod;
  const p = candidate as Partial<SvcPlugin>;
  if (!p || typeof p !== 'object' || typeof p.name !== 'string' || typeof p.setup !== 'function') {
    throw new PluginError(
      `${file} does not export a plugin (expected a default export with name and setup)`,
    );
  }
  if (typeof p.svc !== 'string' || semver.validRange(p.svc) === null) {
    throw new PluginError(
      `plugin ${p.name} (${file}) declares no valid svc version range (e.g. "^2.0.0")`,
    );
  }
  if (!semver.satisfies(PLUGIN_API_VERSION, p.svc)) {
    throw new PluginError(
      `plugin ${p.name} (${file}) needs plugin API ${p.svc}, this svc provides ${PLUGIN_API_VERSION}`,
    );
  }
  return p as SvcPlugin;
}

export interface DiscoverOptions {
  registry: Registry;
  extra: string[];
  configDir: string;
  builtinRoot?: string;
  /**
   * Where TypeScript plugins Node cannot import are bundled to (decision 206); without one such a
   * plugin fails to load as Node says.
   */
  cacheDir?: string;
}

/** `{data_dir}/cache/plugins`: owner-only, like the rest of the data directory. */
export function pluginCacheDir(dataDir: string): string {
  return join(dataDir, 'cache', 'plugins');
}

/**
 * A module file loaded at start-up, not part of the build. A `.ts` plugin Node refuses (Node 20
 * has no TypeScript; its `.js` imports exist only after a build) is bundled and loaded from there.
 */
function fromFile(file: string, cacheDir?: string): BundledPlugin {
  return {
    file,
    load: async () => {
      try {
        return await importExternal(pathToFileURL(file).href);
      } catch (err) {
        if (!cacheDir || !needsBundle(err, file)) throw err;
        const bundled = await bundleTypeScriptPlugin(file, cacheDir);
        return importExternal(pathToFileURL(bundled).href);
      }
    },
  };
}

/** The built-in plugins: the build's own list, or (given a root, or unbundled) a scan of the folder. */
function builtins(root: string | undefined): readonly BundledPlugin[] {
  if (root === undefined && bundledPlugins) return bundledPlugins;
  return builtinPluginFiles(root).map((f) => fromFile(f));
}

export async function loadPlugins(opts: DiscoverOptions): Promise<void> {
  const { registry } = opts;
  const entries: Array<BundledPlugin & { source: 'builtin' | 'config' }> = [
    ...builtins(opts.builtinRoot).map((b) => ({ ...b, source: 'builtin' as const })),
    ...opts.extra.map((e) => ({
      ...fromFile(resolvePluginPath(e, opts.configDir), opts.cacheDir),
      source: 'config' as const,
    })),
  ];
  for (const { file, load, source } of entries) {
    let mod: unknown;
    try {
      mod = await load();
    } catch (err) {
      throw new PluginError(`plugin ${file} failed to load: ${(err as Error).message}`);
    }
    const plugin = asPlugin(mod, file);
    const clash = registry.plugins.find((p) => p.name === plugin.name);
    if (clash) {
      throw new PluginError(`plugin name ${plugin.name} is used twice: ${clash.file} and ${file}`);
    }
    registry.plugins.push({ name: plugin.name, source, file, provides: [] });
    const api: PluginApi = {
      registerAgent: (a) => registry.registerAgent(plugin.name, a),
      registerStepType: (s) => registry.registerStepType(plugin.name, s),
      registerTriggerSource: (t) => registry.registerTriggerSource(plugin.name, t),
      registerForge: (f) => registry.registerForge(plugin.name, f),
    };
    try {
      await plugin.setup(api);
    } catch (err) {
      if (err instanceof PluginError) throw err;
      throw new PluginError(
        `plugin ${plugin.name} (${file}) failed in setup: ${(err as Error).message}`,
      );
    }
  }
  registry.freeze();
}
