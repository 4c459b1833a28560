/**
 * The web board's built files (issue 23 point 1): `npm run build` writes them to `dist/ui/`
 * (scripts/web-build.ts) — `index.html` and content-hashed `*.js`, `*.css` — and the daemon serves
 * them from memory once read. A hashed name never changes content, so it is cached for a year;
 * `index.html` is revalidated every time (`no-cache` with an ETag), so a rebuilt daemon serves its
 * new page at once. Only plain file names in that one folder are served: no sub-paths, no dot
 * files, nothing a request could steer elsewhere.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface UiAsset {
  body: Buffer;
  type: string;
  etag: string;
  cacheControl: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** `name-<hash>.ext`: esbuild's content hash (8 upper-case letters and digits). */
const HASHED = /-[A-Z0-9]{8}\.[a-z0-9]+$/;

/**
 * Where the page was built: `dist/ui/` next to the compiled kernel (a build or the bundle, whose
 * `import.meta.url` is this file's own dist path), or the checkout's `dist/ui/` when the kernel
 * runs from source (tests).
 */
export function defaultUiRoots(): string[] {
  return [
    fileURLToPath(new URL('../../ui/', import.meta.url)),
    fileURLToPath(new URL('../../dist/ui/', import.meta.url)),
  ];
}

export class UiAssets {
  private readonly cache = new Map<string, UiAsset>();
  private root: string | null = null;

  constructor(private readonly roots: readonly string[] = defaultUiRoots()) {}

  /** The folder holding `index.html`, or null when the page was never built. */
  dir(): string | null {
    this.root ??= this.roots.find((r) => existsSync(join(r, 'index.html'))) ?? null;
    return this.root;
  }

  /** A served file by name, or null for a name that is not one. */
  get(name: string): UiAsset | null {
    if (!NAME.test(name) || name.includes('..')) return null;
    const cached = this.cache.get(name);
    if (cached) return cached;
    const dir = this.dir();
    const type = TYPES[extname(name)];
    let asset: UiAsset | null = null;
    if (dir && type) {
      const file = join(dir, name);
      try {
        if (statSync(file).isFile()) {
          const body = readFileSync(file);
          asset = {
            body,
            type,
            etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
            cacheControl: HASHED.test(name) ? 'public, max-age=31536000, immutable' : 'no-cache',
          };
        }
      } catch {
        asset = null;
      }
    }
    // Only hashed files are kept: they never change, and there are few. index.html is read again
    // (a rebuild changes it), and a miss is not remembered (requests cannot grow the cache).
    if (asset && HASHED.test(name)) this.cache.set(name, asset);
    return asset;
  }
}
