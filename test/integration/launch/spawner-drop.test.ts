// The spawner's side of a launch the daemon gave up on (decision 247's `drop`): an output stream
// of it that connects late is closed at once, while a stream of a launch nobody dropped is held
// for its request. Driven over the real spawner's IPC channel and Unix socket.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtSpawner } from './support.js';

let spawner: ChildProcess | null = null;

afterEach(() => {
  spawner?.kill('SIGTERM');
  spawner = null;
});

async function startSpawner(): Promise<{ child: ChildProcess; socket: string }> {
  const socket = join(mkdtempSync(join(tmpdir(), 'svc-spawner-')), 's');
  const child = spawn(process.execPath, [builtSpawner(), socket, '3600000'], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  spawner = child;
  await new Promise<void>((resolve, reject) => {
    child.on('message', (m: { t: string }) => m.t === 'ready' && resolve());
    child.once('exit', (code) => reject(new Error(`the spawner exited (${code})`)));
  });
  return { child, socket };
}

/** Connects one output stream of launch `id` (hex of 16 bytes), as the daemon does. */
async function stream(socket: string, id: string): Promise<Socket> {
  const s = connect(socket);
  await new Promise<void>((resolve, reject) => {
    s.once('connect', resolve);
    s.once('error', reject);
  });
  s.write(Buffer.concat([Buffer.from([1]), Buffer.from(id, 'hex')]));
  return s;
}

/** Resolves true when the far end closes `s` within `ms`, false when it is still open then. */
function closedWithin(s: Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    s.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    s.resume();
  });
}

describe('a launch the daemon dropped', () => {
  it('has a stream that connects late closed, where an undropped one is held', async () => {
    const { child, socket } = await startSpawner();
    const dropped = randomBytes(16).toString('hex');
    const kept = randomBytes(16).toString('hex');
    child.send({ t: 'drop', id: dropped });
    // The message and the connection take different paths: give the message its moment.
    await new Promise((r) => setTimeout(r, 100));
    const late = await stream(socket, dropped);
    const held = await stream(socket, kept);
    expect(await closedWithin(late, 2_000)).toBe(true);
    expect(await closedWithin(held, 300)).toBe(false);
    held.destroy();
  });
});
