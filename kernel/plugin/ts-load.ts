/**
 * A plugin written in TypeScript loads from its source folder (issue 19 point 12, decision 206).
 * Node 20 cannot import `.ts`, and a plugin's own imports name `.js` files that exist only after a
 * build (`../../kernel/plugin/index.js` for `index.ts`). So a `.ts` entry that Node refuses is
 * bundled with esbuild into one ES module — the plugin, its own modules and the packages it
 * imports, resolved from its own folder, as a plugin outside this repository bundles its own copy
 * of our helpers (the kernel judges every value by its data, never with instanceof) — and that
 * module is imported instead. Each module's own URL (import-meta's `url`, `dirname` and
 * `filename`) keeps naming its source file. The bundle is cached by content under the daemon's
 * data directory: a manifest per entry lists every input with its digest, and the cache is used
 * while they all match.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Esbuild from 'esbuild';
import { importExternal } from '../../shared/host.js';

/** Files esbuild reads as TypeScript or JavaScript modules. */
const SOURCE = /\.(m|c)?(ts|tsx|js|jsx)$/;

interface Manifest {
  entry: string;
  esbuild: string;
  inputs: Record<string, string>;
  output: string;
}

const digest = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

function fileDigest(path: string): string | null {
  try {
    return digest(readFileSync(path));
  } catch {
    return null;
  }
}

/** The cached bundle for `entry`, when every input it was built from is unchanged. */
function cached(manifestPath: string, entry: string, esbuildVersion: string): string | null {
  let m: Manifest;
  try {
    m = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  } catch {
    return null;
  }
  if (m.entry !== entry || m.esbuild !== esbuildVersion) return null;
  for (const [path, sum] of Object.entries(m.inputs)) if (fileDigest(path) !== sum) return null;
  try {
    statSync(m.output);
  } catch {
    return null;
  }
  return m.output;
}

function loaderOf(path: string): 'ts' | 'tsx' | 'js' | 'jsx' {
  const ts = /\.(m|c)?tsx?$/.test(path);
  const x = path.endsWith('x');
  return ts ? (x ? 'tsx' : 'ts') : x ? 'jsx' : 'js';
}

const META = /^import\.meta\.(url|dirname|filename)(?![\w$])/;
/** Spelled in two parts: svc's own bundler rewrites the whole word wherever it stands. */
const IMPORT_META = ['import', 'meta'].join('.');

/**
 * The import-meta `url`, `dirname` and `filename` in code replaced by the given literals; strings,
 * template literals and comments are left as written (a string that spells one keeps saying it).
 */
export function replaceImportMeta(
  code: string,
  values: Record<'url' | 'dirname' | 'filename', string>,
): string {
  let out = '';
  let i = 0;
  while (i < code.length) {
    const c = code[i] as string;
    const two = code.slice(i, i + 2);
    let end = i + 1;
    if (two === '//') end = code.indexOf('\n', i) === -1 ? code.length : code.indexOf('\n', i);
    else if (two === '/*')
      end = code.indexOf('*/', i + 2) === -1 ? code.length : code.indexOf('*/', i + 2) + 2;
    else if (c === "'" || c === '"' || c === '`') {
      end = i + 1;
      while (end < code.length && code[end] !== c) end += code[end] === '\\' ? 2 : 1;
      end = Math.min(end + 1, code.length);
    } else if (c === 'i' && !/[\w$.]/.test(code[i - 1] ?? '')) {
      const m = META.exec(code.slice(i, i + 24));
      if (m) {
        out += values[m[1] as 'url' | 'dirname' | 'filename'];
        i += m[0].length;
        continue;
      }
    }
    out += code.slice(i, end);
    i = end;
  }
  return out;
}

/** Writes `text` to `path` through a temporary file, so a reader never sees half a bundle. */
function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
}

/**
 * The path of an ES module Node can import for the TypeScript plugin `entry`, building it when the
 * cache does not hold one for these exact sources. Throws with esbuild's message (file, line)
 * when the plugin does not build.
 */
export async function bundleTypeScriptPlugin(entry: string, cacheDir: string): Promise<string> {
  // Through the launcher's loader: in the single-file build a bare import() has none (decision 158).
  const loaded = (await importExternal('esbuild')) as typeof Esbuild & { default?: typeof Esbuild };
  const esbuild = loaded.default ?? loaded;
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const manifestPath = join(cacheDir, `${digest(entry).slice(0, 24)}.json`);
  const hit = cached(manifestPath, entry, esbuild.version);
  if (hit) return hit;
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: dirname(entry),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    metafile: true,
    sourcemap: 'inline',
    logLevel: 'silent',
    // The kernel's own loader, reached through the plugin door, is never run from a plugin.
    external: ['esbuild'],
    // CommonJS packages in the bundle may `require` Node built-ins: give them a real require.
    banner: {
      js: `import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(${IMPORT_META}.url);`,
    },
    plugins: [
      {
        name: 'svc-import-meta',
        setup(b) {
          // Each module keeps the URL of its own source file, not the cached bundle's.
          b.onLoad({ filter: SOURCE }, (args) => {
            const text = readFileSync(args.path, 'utf8');
            if (!text.includes(IMPORT_META)) return undefined;
            const contents = replaceImportMeta(text, {
              url: JSON.stringify(pathToFileURL(args.path).href),
              dirname: JSON.stringify(dirname(args.path)),
              filename: JSON.stringify(args.path),
            });
            return { contents, loader: loaderOf(args.path), resolveDir: dirname(args.path) };
          });
        },
      },
    ],
  });
  const code = result.outputFiles[0]?.text ?? '';
  const output = join(cacheDir, `${digest(code).slice(0, 24)}.mjs`);
  writeAtomic(output, code);
  const inputs: Record<string, string> = {};
  for (const rel of Object.keys(result.metafile.inputs)) {
    const abs = resolve(dirname(entry), rel);
    const sum = fileDigest(abs);
    if (sum) inputs[abs] = sum;
  }
  writeAtomic(
    manifestPath,
    JSON.stringify({ entry, esbuild: esbuild.version, inputs, output } satisfies Manifest),
  );
  return output;
}

/** Node refused the file itself or what it imports: the cases a bundle answers. */
export function needsBundle(err: unknown, entry: string): boolean {
  if (!/\.(m|c)?tsx?$/.test(entry)) return false;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ERR_UNKNOWN_FILE_EXTENSION' || code === 'ERR_MODULE_NOT_FOUND';
}
