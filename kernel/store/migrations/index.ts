/**
 * The numbered migrations, in order. A migration is a TypeScript module holding its SQL so it is
 * compiled into dist/ with everything else (no copy step that a build could forget); each opens
 * with a comment saying why its tables look the way they do. Never edit a released migration:
 * add the next number. Numbers may have gaps (parallel branches reserve theirs): the runner
 * applies every migration it has not recorded, whatever the order they land in (decision 169).
 */
import m0001 from './0001_events.js';
import m0002 from './0002_tasks.js';
import m0003 from './0003_flow.js';
import m0004 from './0004_triggers.js';
import m0005 from './0005_agents.js';
import m0006 from './0006_mcp.js';
import m0007 from './0007_chats.js';
import m0008 from './0008_worktree_cut.js';
import m0009 from './0009_step_heads.js';
import m0011 from './0011_lanes_and_held_events.js';
import m0012 from './0012_worktree_changes.js';
import m0015 from './0015_task_list.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  m0001,
  m0002,
  m0003,
  m0004,
  m0005,
  m0006,
  m0007,
  m0008,
  m0009,
  m0011,
  m0012,
  m0015,
];

export const NEWEST_MIGRATION = migrations[migrations.length - 1] as Migration;
