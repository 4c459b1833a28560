/**
 * The messages between the daemon and its spawner (decision 247), apart from the spawner's own
 * program so that importing them never starts one.
 */
export interface SpawnRequest {
  t: 'spawn';
  id: string;
  file: string;
  args: string[];
  cwd: string;
  /**
   * As the launch gave it: structured cloning keeps an unset name's `undefined`, and `spawn` leaves
   * such a name out of the program's environment, as it does for a launch forked in the daemon.
   */
  env: Readonly<Record<string, string | undefined>>;
  stdin: Uint8Array | 'keep-open';
  out: boolean;
  err: boolean;
  /**
   * Keep the output here and send it with the exit, at most this many bytes in all plus one
   * (`LaunchSpec.keepUpTo`, decision 255): no output connections for a program read whole.
   */
  keep?: number;
}

export type ToSpawner =
  | SpawnRequest
  | { t: 'stdin'; id: string; data: Uint8Array }
  | { t: 'stdin-end'; id: string }
  /** The daemon gave up on a launch before it started (a stream could not connect). */
  | { t: 'drop'; id: string };

export type FromSpawner =
  | { t: 'ready' }
  | { t: 'spawned'; id: string; pid: number; ticks: string | null }
  | {
      t: 'failed';
      id: string;
      message: string;
      code?: string;
      errno?: number;
      syscall?: string;
      path?: string;
    }
  | {
      t: 'exit';
      id: string;
      code: number | null;
      signal: NodeJS.Signals | null;
      /** A kept launch's output (`keep`), sent once its pipes have closed. */
      out?: Uint8Array;
      err?: Uint8Array;
    }
  /** Directories of dead spawners it removed from the temp dir on starting (decision 248). */
  | { t: 'swept'; dirs: string[] };

export const HEADER_BYTES = 17;
