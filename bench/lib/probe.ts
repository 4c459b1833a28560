/**
 * Loaded into a daemon the bench starts (`node --import …/probe.js`): answers the bench over the
 * IPC channel with what only the daemon's own process can measure — its CPU (`process.cpuUsage()`,
 * user + system of every thread, plus its spawner's (decision 247): svc's own work either way; the
 * programs they start are excluded), its RSS (the spawner's added), its event loop's delay
 * (`perf_hooks.monitorEventLoopDelay`) — and takes a CPU profile of a window on request. Nothing
 * here runs unless the daemon was spawned with an IPC channel, and the channel never keeps the
 * daemon alive.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import {
  constants,
  monitorEventLoopDelay,
  type PerformanceEntry,
  PerformanceObserver,
} from 'node:perf_hooks';
import { spawnerFigures } from './spawner.js';

export type ProbeRequest =
  | { id: number; cmd: 'mark' }
  | { id: number; cmd: 'profile-start'; intervalUs?: number }
  | { id: number; cmd: 'profile-stop'; file: string };

export interface ProbeMark {
  /** Microseconds of CPU since the process started, its spawner's included. */
  user: number;
  system: number;
  /** The daemon's RSS and its spawner's private pages (decision 256). */
  rss: number;
  /** The daemon's RSS and its spawner's whole RSS (the pages both map counted twice). */
  rssSummed: number;
  /** Of `user + system`, the spawner's microseconds (decision 247). */
  spawnerCpu: number;
  /** Event-loop delay since the previous mark, milliseconds. */
  delayP50: number;
  delayP99: number;
  delayMax: number;
  /** Garbage collections since the previous mark: how many, and their longest pause (ms). */
  gcMinor: number;
  gcMajor: number;
  gcMajorMaxMs: number;
  gcTotalMs: number;
}

if (process.send) {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  // Pauses of the main thread by the collector, by kind: a full collection stops the loop far
  // longer than a scavenge.
  const gc = { minor: 0, major: 0, majorMax: 0, total: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      gc.total += e.duration;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        gc.major++;
        gc.majorMax = Math.max(gc.majorMax, e.duration);
      } else if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gc.minor++;
    }
  }).observe({ entryTypes: ['gc'] });
  let session: Session | null = null;
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session?.post(method, params ?? {}, (err, r) => (err ? reject(err) : resolve(r))),
    );
  const answer = (id: number, body: object) => process.send?.({ id, ...body });
  process.on('message', (m: ProbeRequest) => {
    if (m.cmd === 'mark') {
      const cpu = process.cpuUsage();
      const spawner = spawnerFigures(process.pid);
      const mark: ProbeMark = {
        user: cpu.user + spawner.user,
        system: cpu.system + spawner.system,
        rss: process.memoryUsage.rss() + spawner.private,
        rssSummed: process.memoryUsage.rss() + spawner.rss,
        spawnerCpu: spawner.user + spawner.system,
        delayP50: delay.percentile(50) / 1e6,
        delayP99: delay.percentile(99) / 1e6,
        delayMax: delay.max / 1e6,
        gcMinor: gc.minor,
        gcMajor: gc.major,
        gcMajorMaxMs: gc.majorMax,
        gcTotalMs: gc.total,
      };
      delay.reset();
      Object.assign(gc, { minor: 0, major: 0, majorMax: 0, total: 0 });
      answer(m.id, mark);
    } else if (m.cmd === 'profile-start') {
      session = new Session();
      session.connect();
      void post('Profiler.enable')
        .then(() => post('Profiler.setSamplingInterval', { interval: m.intervalUs ?? 200 }))
        .then(() => post('Profiler.start'))
        .then(() => answer(m.id, {}));
    } else if (m.cmd === 'profile-stop') {
      void post('Profiler.stop').then((r) => {
        writeFileSync(m.file, JSON.stringify((r as { profile: unknown }).profile));
        session?.disconnect();
        session = null;
        answer(m.id, {});
      });
    }
  });
  process.channel?.unref();
}
