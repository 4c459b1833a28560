/**
 * proc: child processes svc starts for users — the environment policy, process-group spawning
 * with graceful-then-forced termination on the injected clock, orphan recognition after a crash,
 * and per-attempt transcripts; every program starts through kernel/launch (a spawner process while
 * a daemon runs, decision 247). Uses: clock, launch. Used by: engine, step plugins (through StepContext),
 * notify, chats. Decision 013 (why node:child_process and not execa here).
 */
export {
  type CaptureResult,
  type CaptureSpec,
  capture,
  DEFAULT_CAPTURE_BYTES,
} from './capture.js';
export { DiskLane } from './disk-lane.js';
export { type EnvironmentPolicy, resolveEnvironment } from './env.js';
export { needsJsonEscape } from './json-clean.js';
export { killMarked, MARK_VAR, markedPids, procMarkPrefix, signalMarked } from './marks.js';
export { linesText, type OutputBatch, OutputLines } from './output-lines.js';
export { OutputQueue, QUEUE_HOLD, SLICE_MS } from './output-pump.js';
export { OutputTail, tailLines } from './output-tail.js';
export {
  KILL_GRACE_MS,
  killOrphan,
  LineSplitter,
  processStartTicks,
  type RunningProcess,
  type SpawnResult,
  type SpawnSpec,
  startProcess,
} from './spawn.js';
export { TRANSCRIPT_HIGH_WATER, TranscriptWriter } from './transcript.js';
export { RecentBytes, recentOf } from './transcript-recent.js';
