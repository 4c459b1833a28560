/**
 * One spawner process as the daemon sees it (decisions 247, 248): the 0700 directory holding its
 * socket, its IPC channel, whether it became ready and how it ended. Which spawner a launch goes
 * to, and what happens to the launches of one that ends, is spawner-client.ts's business.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FromSpawner, ToSpawner } from './spawner-protocol.js';

export type SpawnerMessage = Exclude<FromSpawner, { t: 'ready' }>;

export class SpawnerProcess {
  readonly child: ChildProcess;
  /** Its socket's directory, `svc-spawner-XXXXXX` under the temp dir; removed when it ends. */
  readonly dir: string;

  /** True once its socket listens; false if it ended (or could not be started) first. */
  readonly ready: Promise<boolean>;
  /** An output stream has connected to its socket: it has worked, whatever happens to it later. */
  served = false;
  /** We let it go (it exits when its channel closes): its end is no trouble. */
  letGo = false;
  private wasReady = false;
  private ended = false;

  /**
   * Starts one; throws (having removed its directory) when there is no room for the socket or no
   * process to be had at once. A spawn that fails later ends it through `onEnd` like an exit.
   */
  constructor(
    script: string,
    touchEveryMs: number,
    onMessage: (m: SpawnerMessage) => void,
    /** Once: it exited, or never started. `wasReady` tells a start failure from a death. */
    onEnd: (proc: SpawnerProcess, why: string, wasReady: boolean) => void,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), 'svc-spawner-'));
    try {
      this.child = spawn(process.execPath, [script, this.socket, String(touchEveryMs)], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        serialization: 'advanced',
        detached: true,
      });
    } catch (err) {
      this.removeDir();
      throw err;
    }
    const child = this.child;
    child.unref();
    this.ready = new Promise<boolean>((resolve) => {
      const end = (why: string) => {
        resolve(false);
        if (this.ended) return;
        this.ended = true;
        this.removeDir();
        onEnd(this, why, this.wasReady);
      };
      child.on('message', (m: FromSpawner) => {
        if (m.t !== 'ready') onMessage(m);
        else if (!this.ended) {
          this.wasReady = true;
          resolve(true);
        }
      });
      // A spawn that fails (EAGAIN, ENOENT …) is reported here, and no 'exit' follows: without this
      // its directory would stay in the temp dir for good. Other errors (a message that could not
      // be sent) are followed by the exit.
      child.on('error', (err) => {
        if (child.pid === undefined) end(err.message);
      });
      child.once('exit', (code, signal) => end(signal ?? `status ${code}`));
    });
  }

  get socket(): string {
    return join(this.dir, 's');
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get connected(): boolean {
    return this.child.connected;
  }

  send(m: ToSpawner): void {
    // A channel that breaks mid-send answers here; the exit that follows is the news.
    if (this.child.connected) this.child.send(m, undefined, undefined, () => {});
  }

  /** Its channel keeps the daemon's process alive only while a launch needs it. */
  hold(needed: boolean): void {
    const channel = this.child.channel;
    if (!channel) return;
    if (needed) channel.ref();
    else channel.unref();
  }

  /** Closes its channel: it exits, removing its directory (so do we, in case it cannot). */
  letItGo(): void {
    this.letGo = true;
    if (this.child.connected) this.child.disconnect();
    this.removeDir();
  }

  removeDir(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
