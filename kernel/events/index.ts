/**
 * events: the durable event log (SPEC §6) and its live fan-out. Uses: store, clock.
 * Used by: every service that changes state (append inside its transaction), the SSE routes.
 * Framing of the streams: docs/events.md.
 */
export { EVENT_KINDS, type EventKind, isEventKind } from './kinds.js';
export {
  type EventListener,
  EventLog,
  type EventQuery,
  type EventSubjects,
  type LiveChunk,
  type LiveListener,
  type StoredEvent,
} from './log.js';
