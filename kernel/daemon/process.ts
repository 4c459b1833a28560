/**
 * What is known about the daemon process from outside it: the Node flags it runs with and the
 * daemon.json it publishes once listening (the listener, kernel/listener.ts, writes it).
 */

/**
 * Node flags the daemon process runs with (`svc daemon start`, `npm start`). V8 grows its young
 * generation to 2 × 16 MB while modules load and keeps it; capped at 2 × 2 MB the idle daemon's RSS
 * is about 13 MB smaller, with no measurable cost to start-up or throughput (docs/performance.md).
 * A foreground `svc daemon run` gets the same with NODE_OPTIONS=--max-semi-space-size=2.
 *
 * `--single-threaded-gc`: V8 otherwise splits each collection across helper threads and the main
 * thread waits for all of them; on a busy machine (the daemon's normal place, beside the agents
 * and builds it supervises) a helper preempted mid-collection holds the event loop until the
 * kernel runs it again. Under the bench's output section (16 producers on 2 cores) scavenges of
 * the 2 MB young generation took 7.5 ms on average and up to 115 ms; on one thread, 2.4 ms and
 * 33 ms (decision 246). The daemon's heap is small, so helpers save little when the machine is
 * quiet. Node refuses this flag in NODE_OPTIONS: a foreground `svc daemon run` gets it as
 * `node --single-threaded-gc dist/bin/svc.js daemon run`.
 */
export const DAEMON_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=2',
  '--single-threaded-gc',
];

/** {data_dir}/daemon.json: how clients find a running daemon. */
export interface DaemonJson {
  pid: number;
  port: number;
  host: string;
  url: string;
  started_at: string;
  version: string;
}
