/**
 * The single-file build (decision 158): dist/svc.cjs, the command line, the daemon and every
 * built-in plugin with their dependencies in one CommonJS file that bin/svc.ts runs with a V8
 * code cache. Runs after `tsc` (`npm run build`) and bundles its output, so what is bundled is
 * exactly what the type check passed.
 *
 * Left out, loaded from dist/ and node_modules as usual: better-sqlite3 (a native addon) and the
 * board (Ink uses top-level await, which CommonJS cannot hold); both through the launcher's loader.
 */
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { builtinPluginFiles } from '../kernel/plugin/index.js';
import { assertAscii } from './ascii-check.js';
import { lazyTls } from './lazy-tls.js';

const DIST = fileURLToPath(new URL('../', import.meta.url));
const OUT = join(DIST, 'svc.cjs');
const posix = (p: string) => p.split('\\').join('/');

/** kernel/plugin/bundled.js becomes the scanned list, each plugin imported by a literal path. */
function bundledPluginsList(): Plugin {
  return {
    name: 'svc-bundled-plugins',
    setup(b) {
      b.onLoad({ filter: /[\\/]kernel[\\/]plugin[\\/]bundled\.js$/ }, (args) => {
        const here = dirname(args.path);
        const rows = builtinPluginFiles(join(DIST, 'plugins')).map((file) => {
          const fromHere = JSON.stringify(`./${posix(relative(here, file))}`);
          const fromDist = JSON.stringify(posix(relative(DIST, file)));
          return `  { file: fileURLToPath(__svcFileUrl(${fromDist})), load: () => import(${fromHere}) },`;
        });
        if (rows.length === 0) throw new Error(`no built-in plugins under ${DIST}plugins`);
        const contents = [
          "import { fileURLToPath } from 'node:url';",
          'export const bundledPlugins = [',
          ...rows,
          '];',
        ].join('\n');
        return { contents, loader: 'js', resolveDir: here };
      });
    },
  };
}

/**
 * `import.meta.url` keeps meaning "where this module's own file is": every module of the bundle
 * gets the URL of the file it came from (its dist/ or node_modules/ path), so paths it builds
 * relative to itself (package.json, the board, the daemon's own executable) still resolve.
 */
function importMetaUrl(): Plugin {
  return {
    name: 'svc-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.(m?js|cjs)$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta')) return undefined;
        const rel = JSON.stringify(posix(relative(DIST, args.path)));
        const contents = source.replaceAll('import.meta.url', `__svcFileUrl(${rel})`);
        if (/import\.meta\b/.test(contents.replace(/\/\/.*$/gm, ''))) {
          throw new Error(`${args.path} uses import.meta beyond .url; teach scripts/bundle.ts`);
        }
        return { contents, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}

/**
 * Left to `require` at run time: the native addon, and what fastify and the MCP SDK load only when
 * asked (schema compilers, inject, ajv). In the bundle their source would sit in memory unused.
 */
const EXTERNAL = [
  'better-sqlite3',
  // Loaded only when a TypeScript plugin must be bundled (decision 206); a native binary inside.
  'esbuild',
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  'light-my-request',
  'ajv',
  'ajv-formats',
];

/** zod's namespace re-exports every locale; svc speaks English only (the default, `en`). */
function zodEnglishOnly(): Plugin {
  return {
    name: 'svc-zod-english-only',
    setup(b) {
      b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
        contents: "export { default as en } from './en.js';",
        loader: 'js',
        resolveDir: dirname(args.path),
      }));
    },
  };
}

/** fastify's server module with its TLS and HTTP/2 built-ins loaded on first use (lazy-tls.ts). */
function fastifyLazyTls(): Plugin {
  return {
    name: 'svc-fastify-lazy-tls',
    setup(b) {
      b.onLoad({ filter: /[\\/]fastify[\\/]lib[\\/]server\.js$/ }, (args) => ({
        contents: lazyTls(readFileSync(args.path, 'utf8'), args.path),
        loader: 'js',
        resolveDir: dirname(args.path),
      }));
    },
  };
}

rmSync(join(DIST, '.cache'), { recursive: true, force: true });
const result = await build({
  entryPoints: [join(DIST, 'bin', 'bundle-entry.js')],
  outfile: OUT,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  external: [...EXTERNAL],
  minifyWhitespace: true,
  banner: {
    js: "const __svcFileUrl = (rel) => require('node:url').pathToFileURL(require('node:path').join(__dirname, rel)).href;",
  },
  plugins: [bundledPluginsList(), zodEnglishOnly(), fastifyLazyTls(), importMetaUrl()],
  logLevel: 'warning',
  metafile: true,
});
assertAscii(readFileSync(OUT), OUT);
const bytes = result.metafile.outputs[posix(relative(process.cwd(), OUT))]?.bytes;
process.stdout.write(
  `bundled ${Object.keys(result.metafile.inputs).length} modules into ${OUT}${bytes ? ` (${Math.round(bytes / 1024)} KiB)` : ''}\n`,
);
