// What the launch tests share: the built spawner, a bare environment, and what /proc says of a pid.
import { readFileSync } from 'node:fs';
import { type Launcher, spawnerScript } from '../../../kernel/launch/index.js';
import { tempDir } from '../../support/tmp.js';

/** The built spawner program (the spawner runs from dist/, so these tests need `npm run build`). */
export function builtSpawner(): string {
  const script = spawnerScript();
  if (!script) throw new Error('the spawner is not built: run `npm run build` first');
  return script;
}

export const env = { PATH: process.env.PATH ?? '' };

export function parentOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
}

/** Running and not a zombie. */
export function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

/** Where a launch's program runs: its parent's pid. */
export async function parentOfLaunch(l: Launcher): Promise<number> {
  const p = l.launch({ file: 'sleep', args: ['60'], cwd: tempDir(), env, stdin: '' });
  await p.spawned;
  const parent = parentOf(p.pid as number);
  p.signal('SIGKILL');
  await p.closed;
  return parent;
}

/** A program (for `node -e`) printing a megabyte of every byte value; `megabyte()` is what it prints. */
export const PRINT_MEGABYTE =
  'const b = Buffer.alloc(1 << 20); for (let i = 0; i < b.length; i++) b[i] = (i * 7) & 255; process.stdout.write(b);';

export function megabyte(): Buffer {
  const b = Buffer.alloc(1 << 20);
  for (let i = 0; i < b.length; i++) b[i] = (i * 7) & 255;
  return b;
}
