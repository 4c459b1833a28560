// Issue 21 point 5: docs/architecture.md is the map a contributor reads first, and its picture
// stays true to the folders. Every top-level kernel room, plugin kind and client room is named in
// the Mermaid diagram, everything it names exists, and the layers it draws are the import rule:
// a room imports only rooms on its own layer or below. Upward imports that exist today are listed
// as known debts below; the list may only shrink (a listed import that is gone fails too).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importSpecifiers } from '../../support/imports.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOC = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
const MERMAID = /```mermaid\n([\s\S]*?)```/.exec(DOC)?.[1] ?? '';

/** Rooms outside kernel/ the picture must name. */
const CLIENT_ROOMS = ['bin/', 'cli/', 'web/', 'shared/'];

/**
 * Imports that run up the layers, `importer file -> imported room`: none. Issue 21 paid the last
 * (the listener, which builds the kernel, lived in kernel/daemon/ below it); a new one is a bug in
 * where its file lives, not a line to add here.
 */
const KNOWN_UPWARD: readonly string[] = [];

interface Layers {
  /** Room (`kernel/engine/`, `kernel/errors.ts`, `cli/`, `plugins/steps/`) → layer index, 0 = top. */
  layerOf: Map<string, number>;
  names: string[];
}

function layersOfPicture(): Layers {
  const layerOf = new Map<string, number>();
  const names: string[] = [];
  let layer = -1;
  for (const line of MERMAID.split('\n')) {
    const sub = /^\s*subgraph (\w+)/.exec(line);
    if (sub) {
      layer += 1;
      names.push(sub[1] ?? '');
      continue;
    }
    const node = /^\s*\w+\["([^ "]+)/.exec(line);
    if (node?.[1] && layer >= 0) layerOf.set(node[1], layer);
  }
  return { layerOf, names };
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : sources(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

/** The room a repository-relative path belongs to, as the picture names it. */
function roomOf(rel: string): string | null {
  const parts = rel.split('/');
  if ((parts[0] === 'kernel' || parts[0] === 'lib') && parts.length === 2)
    return `${parts[0]}/${parts[1]}`;
  if (parts[0] === 'kernel' || parts[0] === 'lib' || parts[0] === 'plugins')
    return `${parts[0]}/${parts[1]}/`;
  if (CLIENT_ROOMS.includes(`${parts[0]}/`)) return `${parts[0]}/`;
  return null;
}

describe('docs/architecture.md', () => {
  const { layerOf, names } = layersOfPicture();

  it('draws the layers top to bottom, plugins beside them', () => {
    expect(names).toEqual([
      'clients',
      'surfaces',
      'services',
      'primitives',
      'ground',
      'libraries',
      'plugins',
    ]);
  });

  it('names every top-level kernel and lib room, plugin kind and client room', () => {
    const kernel = readdirSync(join(ROOT, 'kernel'))
      .filter((n) => n !== 'index.ts')
      .map((n) =>
        statSync(join(ROOT, 'kernel', n)).isDirectory() ? `kernel/${n}/` : `kernel/${n}`,
      )
      .filter((n) => n.endsWith('/') || n.endsWith('.ts'));
    const kinds = readdirSync(join(ROOT, 'plugins')).map((n) => `plugins/${n}/`);
    const missing = [...kernel, ...kinds, ...CLIENT_ROOMS].filter((room) => !layerOf.has(room));
    expect(missing).toEqual([]);
  });

  it('names only rooms that exist', () => {
    const gone = [...layerOf.keys()].filter((room) => {
      try {
        statSync(join(ROOT, room));
        return false;
      } catch {
        return true;
      }
    });
    expect(gone).toEqual([]);
  });

  it('is the import rule: a room imports only its own layer or below, plugins only the door', () => {
    const plugins = names.indexOf('plugins');
    const upward: string[] = [];
    for (const top of ['kernel', 'lib', 'plugins', 'cli', 'bin', 'web', 'shared']) {
      for (const file of sources(join(ROOT, top))) {
        const rel = relative(ROOT, file);
        const from = roomOf(rel);
        if (from === null) continue;
        for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
          if (!spec.startsWith('.')) continue;
          const target = relative(ROOT, resolve(dirname(file), spec)).replace(/\.js$/, '.ts');
          const to = roomOf(target);
          if (to === null || to === from) continue;
          const a = layerOf.get(from);
          const b = layerOf.get(to);
          if (a === undefined || b === undefined) continue; // the naming tests report these
          const wrong = a === plugins ? to !== 'kernel/plugin/' : b !== plugins && b < a;
          if (wrong) upward.push(`${rel} -> ${to}`);
        }
      }
    }
    expect(upward.sort()).toEqual([...KNOWN_UPWARD].sort());
  });
});
