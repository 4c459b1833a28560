/**
 * disk: what the daemon does when its data disk is full (decision 180) — recognizing the fault in
 * any of its shapes, disk-full mode, and the reserve that lets outcomes be recorded anyway.
 * Uses: clock. Used by: engine, http, ops, chats, daemon.
 */

export { diskFullCode, isDiskFull } from './full.js';
export {
  DiskGuard,
  type DiskGuardOptions,
  type DiskStatus,
  RECHECK_MS,
  RESERVE_BYTES,
} from './guard.js';
