// Issue 21 point 3: no import circles in the kernel, the plugins, the CLI or the web board,
// type-only imports included. A circle means neither file can be read, tested or moved without
// the other; a type-only one still ties the two rooms' shapes together.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importSpecifiers } from '../../support/imports.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ROOMS = ['kernel', 'lib', 'plugins', 'cli', 'web', 'bin', 'shared'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : sources(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

/** The file a relative specifier names: `./x.js` is `x.ts` or `x.tsx` in the sources. */
function target(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const c of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base])
    if (existsSync(c) && statSync(c).isFile()) return c;
  return null;
}

function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const to = importSpecifiers(readFileSync(file, 'utf8'))
      .filter((s) => s.startsWith('.'))
      .map((s) => target(file, s))
      .filter((t): t is string => t !== null);
    graph.set(file, to);
  }
  return graph;
}

/** Strongly connected components of more than one file (Tarjan, iterative: no deep recursion). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  let next = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: Array<{ v: string; i: number }> = [{ v: root, i: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1] as { v: string; i: number };
      const edges = graph.get(top.v) ?? [];
      if (top.i < edges.length) {
        const w = edges[top.i++] as string;
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(top.v, Math.min(low.get(top.v) ?? 0, index.get(w) ?? 0));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v) ?? 0, low.get(top.v) ?? 0));
      if (low.get(top.v) === index.get(top.v)) {
        const comp: string[] = [];
        let w: string | undefined;
        do {
          w = stack.pop();
          if (w === undefined) break;
          onStack.delete(w);
          comp.push(w);
        } while (w !== top.v);
        if (comp.length > 1) out.push(comp.sort());
      }
    }
  }
  return out;
}

describe('import circles', () => {
  it('there are none in kernel/, lib/, plugins/, cli/, web/, bin/ and shared/, type imports included', () => {
    const files = ROOMS.flatMap((room) => sources(join(ROOT, room)));
    expect(files.length).toBeGreaterThan(300);
    const found = circles(importGraph(files)).map((c) => c.map((f) => relative(ROOT, f)));
    expect(found).toEqual([]);
  });

  it('are found when they exist, through any number of files', () => {
    const g = new Map<string, string[]>([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e2']],
      ['e2', ['e']],
    ]);
    expect(circles(g).sort()).toEqual([
      ['a', 'b', 'c'],
      ['e', 'e2'],
    ]);
  });
});
