/**
 * Notify hooks (SPEC §2.10 `notify.on`, `notify.command`): on a root task's transition into a
 * listed state, run the command (argv, no shell) with the envelope as JSON on stdin. At most 4 run
 * at once from a 64-entry queue (a full queue drops and logs), each is killed after 10 s, failures
 * are logged and never retried, nothing is replayed after a restart, a command never blocks a task,
 * and its environment is the environment policy without any SVC_* variable.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock/index.js';
import type { ConfigService } from '../config/index.js';
import type { StoredEvent } from '../events/index.js';
import { resolveEnvironment, startProcess } from '../proc/index.js';

export const NOTIFY_CONCURRENCY = 4;
export const NOTIFY_QUEUE = 64;
export const NOTIFY_TIMEOUT_MS = 10_000;

export class Notifier {
  private running = 0;
  private readonly queue: Array<{ argv: string[]; body: string; taskId: unknown }> = [];
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly config: ConfigService,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Called after a task.state_changed event commits. */
  onStateChanged(event: StoredEvent, isRoot: boolean): void {
    const { on, command } = this.config.current().notify;
    const to = event.payload.to as string;
    if (!isRoot || command.length === 0 || !on.includes(to as (typeof on)[number])) return;
    const body = JSON.stringify({ event_id: event.id, ts: event.ts, ...event.payload });
    if (this.queue.length >= NOTIFY_QUEUE) {
      this.logger.warn({ task_id: event.task_id, to }, 'notify queue full; notification dropped');
      return;
    }
    this.queue.push({ argv: command, body, taskId: event.task_id });
    this.pump();
  }

  private pump(): void {
    while (this.running < NOTIFY_CONCURRENCY && this.queue.length > 0) {
      const job = this.queue.shift();
      if (!job) break;
      this.running++;
      void this.run(job.argv, job.body, job.taskId).finally(() => {
        this.running--;
        this.pump();
        if (this.running === 0 && this.queue.length === 0)
          for (const w of this.idleWaiters.splice(0)) w();
      });
    }
  }

  private async run(argv: string[], body: string, taskId: unknown): Promise<void> {
    const [file, ...args] = argv;
    if (!file) return;
    const env = resolveEnvironment(this.config.current().environment);
    for (const k of Object.keys(env)) if (k.startsWith('SVC_')) delete env[k];
    let stderr = '';
    const proc = startProcess({
      file,
      args,
      cwd: process.cwd(),
      env,
      stdin: body,
      timeoutMs: NOTIFY_TIMEOUT_MS,
      killGraceMs: 0,
      clock: this.clock,
      onStderr: (c) => {
        if (stderr.length < 2048) stderr += c.toString('utf8');
      },
    });
    const r = await proc.done;
    if (r.spawnError)
      this.logger.error(
        { task_id: taskId, err: r.spawnError.message },
        'notify command could not start',
      );
    else if (r.timedOut) this.logger.error({ task_id: taskId }, 'notify command killed after 10s');
    else if (r.exitCode !== 0)
      this.logger.error(
        { task_id: taskId, exit_code: r.exitCode, stderr: stderr.slice(0, 500) },
        'notify command failed',
      );
  }

  /** Resolves when nothing is queued or running (tests, shutdown). */
  idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }
}
