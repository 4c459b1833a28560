// Issue 21 point 6, decision 220: every dependency package.json declares is used, and everything
// the shipped code imports is declared where `npm install --omit=dev` still installs it. A
// dependency nobody imports is weight every install carries and a supply-chain door nobody
// watches; a runtime import of a devDependency works in the checkout and breaks for a user.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importSpecifiers } from '../../support/imports.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** What the daemon and the CLI run: shipped in `dependencies`. */
const SHIPPED = ['kernel', 'cli', 'plugins', 'bin'];
/** Build, bench, page and test code: may use devDependencies too. */
const TOOLING = ['scripts', 'bench', 'web', 'test'];

/**
 * devDependencies used as programs or type packages rather than imported, each with its use.
 * A new entry needs a reason a reviewer can check.
 */
const USED_WITHOUT_IMPORT: Record<string, string> = {
  typescript: '`tsc` in npm run build',
  '@biomejs/biome': '`biome ci` in npm test',
  '@types/node': 'types for node: imports',
  '@types/react': 'types for the terminal board',
  '@types/better-sqlite3': 'types for the store',
  '@types/semver': 'types for kernel/ops/update.ts',
};

function sources(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    if (name === 'node_modules' || name === 'fixtures') return [];
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.(ts|tsx|mts)$/.test(name) ? [p] : [];
  });
}

/** `@scope/name/sub/path.js` → `@scope/name`; `name/sub` → `name`; relative and node: → null. */
function packageOf(spec: string): string | null {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:')) return null;
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? spec);
  return builtinModules.includes(name) ? null : name;
}

const isTest = (file: string) => /\.test\.tsx?$/.test(file);

/** Package name → files importing it; `tests` picks the test files (plugins keep theirs beside them). */
function importsUnder(rooms: string[], tests: 'with' | 'without' | 'only'): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const room of rooms) {
    for (const file of sources(join(ROOT, room))) {
      if ((tests === 'without' && isTest(file)) || (tests === 'only' && !isTest(file))) continue;
      const text = readFileSync(file, 'utf8');
      const specs = importSpecifiers(text);
      // tsx files compile to `react/jsx-runtime` imports (tsconfig `jsx: react-jsx`).
      if (file.endsWith('.tsx')) specs.push('react/jsx-runtime');
      for (const spec of specs) {
        const name = packageOf(spec);
        if (name === null) continue;
        const files = found.get(name) ?? [];
        files.push(relative(ROOT, file));
        found.set(name, files);
      }
    }
  }
  return found;
}

describe('declared dependencies', () => {
  const shipped = importsUnder(SHIPPED, 'without');
  const tooling = new Map([...importsUnder(TOOLING, 'with'), ...importsUnder(SHIPPED, 'only')]);

  it('every runtime dependency is imported by the code that ships', () => {
    const unused = Object.keys(pkg.dependencies).filter((name) => !shipped.has(name));
    expect(unused).toEqual([]);
  });

  it('every devDependency is imported by build, bench, page or test code, or has a named use', () => {
    const unused = Object.keys(pkg.devDependencies).filter(
      (name) => !tooling.has(name) && !shipped.has(name) && !(name in USED_WITHOUT_IMPORT),
    );
    expect(unused).toEqual([]);
    // The named uses stay honest: a listed package that left package.json leaves the list too.
    const stale = Object.keys(USED_WITHOUT_IMPORT).filter((name) => !(name in pkg.devDependencies));
    expect(stale).toEqual([]);
  });

  it('the code that ships imports only runtime dependencies', () => {
    const wrong = [...shipped]
      .filter(([name]) => !(name in pkg.dependencies))
      .map(([name, files]) => `${name} (${files[0]})`);
    expect(wrong).toEqual([]);
  });

  it('build, bench and page code import only what package.json declares', () => {
    // Tests are left out: a test imports what it imports or fails to load, and some carry package
    // names as fixture text.
    const declared = { ...pkg.dependencies, ...pkg.devDependencies };
    const wrong = [...importsUnder(['scripts', 'bench', 'web'], 'without')]
      .filter(([name]) => !(name in declared))
      .map(([name, files]) => `${name} (${files[0]})`);
    expect(wrong).toEqual([]);
  });

  it('the package names are read as npm resolves them', () => {
    expect(packageOf('@modelcontextprotocol/sdk/server/mcp.js')).toBe('@modelcontextprotocol/sdk');
    expect(packageOf('react/jsx-runtime')).toBe('react');
    expect(packageOf('node:fs')).toBeNull();
    expect(packageOf('fs')).toBeNull();
    expect(packageOf('./own.js')).toBeNull();
  });
});
