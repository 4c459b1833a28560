// Issue 12 point 1, SPEC §1: the board is a client of the API and nothing else. Everything
// `svc tui` loads is followed from its command through relative imports; no module it runs may
// come from kernel/ (type-only imports are erased and carry no code, so they are allowed outside
// cli/tui/ — the CLI's client names the daemon.json shape that way — but not inside it).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Relative imports of one source file, resolved to source paths (`.js` → `.ts`/`.tsx`). */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  // The last form is a module loaded by URL (the board, through the launcher's loader).
  const pattern =
    /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'"`;]*?\s+from\s+)?'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)|new URL\(\s*'(\.[^']+\.js)',\s*import\.meta\.url\s*\)/g;
  for (const m of text.matchAll(pattern)) {
    const spec = m[3] ?? m[4] ?? m[5];
    if (spec === undefined) continue;
    const base = resolve(dirname(file), spec).replace(/\.js$/, '');
    const to = [`${base}.ts`, `${base}.tsx`].find((p) => existsSync(p));
    if (to === undefined) throw new Error(`${relative(ROOT, file)}: cannot resolve ${spec}`);
    found.push({ from: file, to, typeOnly: m[2] !== undefined });
  }
  return found;
}

/** Every import reachable from `entry`, following only imports that carry code. */
function reachable(entry: string): Import[] {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  const all: Import[] = [];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const imp of importsOf(file)) {
      all.push(imp);
      if (imp.typeOnly || seen.has(imp.to)) continue;
      seen.add(imp.to);
      queue.push(imp.to);
    }
  }
  return all;
}

const underKernel = (p: string) => relative(ROOT, p).startsWith('kernel/');
const show = (i: Import) => `${relative(ROOT, i.from)} → ${relative(ROOT, i.to)}`;

describe('the board’s boundary', () => {
  const imports = reachable(join(ROOT, 'cli', 'commands', 'tui.ts'));

  it('loads no kernel module', () => {
    expect(imports.length).toBeGreaterThan(20);
    expect(imports.filter((i) => !i.typeOnly && underKernel(i.to)).map(show)).toEqual([]);
  });

  it('names no kernel module inside cli/tui, not even for a type', () => {
    const inTui = imports.filter((i) => relative(ROOT, i.from).startsWith('cli/tui/'));
    expect(inTui.length).toBeGreaterThan(10);
    expect(inTui.filter((i) => underKernel(i.to)).map(show)).toEqual([]);
  });
});
