import { readFileSync } from 'node:fs';

/** The daemon's own version, read once from package.json (the same file in a clone and in dist/). */
function readVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'svc' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // try the next candidate: sources sit one level below package.json, dist/ two
    }
  }
  return '0.0.0-dev';
}

export const VERSION = readVersion();
