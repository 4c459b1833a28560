/**
 * What is known about the daemon process from outside it: the Node flags it runs with and the
 * daemon.json it publishes once listening (the listener, kernel/listener.ts, writes it).
 */

/**
 * Node flags the daemon process runs with (`svc daemon start`, `npm start`): none, and no V8 flag
 * may be added here (decision 253). Node ships its built-in modules with a V8 code cache that is
 * only valid for V8's default flags: any V8 flag on the command line — `--max-semi-space-size=2`,
 * which the daemon ran with for a smaller young generation, included — makes Node compile every
 * built-in it loads from source, about 45 ms of each cold start on a 2-core host.
 */
export const DAEMON_NODE_FLAGS: readonly string[] = [];

/** {data_dir}/daemon.json: how clients find a running daemon. */
export interface DaemonJson {
  pid: number;
  port: number;
  host: string;
  url: string;
  started_at: string;
  version: string;
}
