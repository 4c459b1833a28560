/**
 * What is known about the daemon process from outside it: the Node flags it runs with and the
 * daemon.json it publishes once listening (the listener, kernel/listener.ts, writes it).
 */

/**
 * Node flags the daemon process runs with (`svc daemon start`, `npm start`). V8 grows its young
 * generation to 2 × 16 MB while modules load and keeps it; capped at 2 × 2 MB the idle daemon's RSS
 * is about 13 MB smaller, with no measurable cost to start-up or throughput (docs/performance.md).
 * A foreground `svc daemon run` gets the same with NODE_OPTIONS=--max-semi-space-size=2.
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2'];

/** {data_dir}/daemon.json: how clients find a running daemon. */
export interface DaemonJson {
  pid: number;
  port: number;
  host: string;
  url: string;
  started_at: string;
  version: string;
}
