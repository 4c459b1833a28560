/**
 * The API's answers as the two boards read them (docs/api.md, docs/tasks.md; SPEC §2.1–2.4, §2.8
 * fields, §4.3 resolve): the terminal board (cli/tui/) and the web board (web/) draw the same
 * daemon answers, so they read them through one set of types. It sits in shared/ because both
 * import it and neither may import the kernel (decisions 140 and 242); it holds types only and
 * imports nothing, so the root tsconfig (node) and web/tsconfig.json (DOM, no node types) both
 * accept it.
 *
 * The union of what the two boards draw, not the daemon's whole answer. Every field a newer daemon
 * may omit is optional, and enumerations stay plain strings so an unknown state, reason or action
 * renders as text (SPEC §9). The command line's task (cli/commands/tasks.ts) and the daemon's own
 * quota and loop views (kernel/agents/quota.ts, kernel/engine/loop-view.ts) extend these types,
 * narrowing them, so what the daemon sends and what its clients read cannot drift apart.
 */

// ── Tasks ──────────────────────────────────────────────────────────────────────────────────────

/** A task's `loop` while its current step is a loop (kernel/engine/loop-view.ts). */
export interface LoopProgress {
  /** `count` or `for_each`. */
  driver?: string;
  iteration: number;
  max_iterations: number;
  total?: number;
  item?: string;
  body_step?: string;
  body_index?: number;
  body_total?: number;
}

export interface PendingQuestion {
  text: string;
  header?: string;
  options?: string[];
  /** What each option means, index for index (absent from older daemons). */
  option_descriptions?: string[];
  multi_select?: boolean;
}

/** What a task in `awaiting_input` waits on. */
export interface PendingInput {
  /** `question` or `permission`. */
  kind: string;
  questions?: PendingQuestion[];
  permission?: { tool: string; summary: string };
}

/** A row of `GET /v1/tasks`; every task answer carries these (the detail adds TaskDetail's). */
export interface TaskRow {
  id: number;
  project_id: number;
  project_name?: string;
  title: string;
  description?: string;
  state: string;
  workflow: string;
  branch_name: string | null;
  base_branch?: string;
  worktree_path: string | null;
  current_step: number;
  step_total: number;
  step_name?: string;
  status_message?: string;
  block_reason: string | null;
  block_detail?: string | null;
  queued_reason: string | null;
  admit_not_before: string | null;
  pause_requested?: boolean;
  available_actions: string[];
  open_chat_id?: number;
  cost_usd?: number | null;
  input_tokens?: number;
  output_tokens?: number;
  parent_task_id: number | null;
  lane_id: string | null;
  lane_order?: number | null;
  loop?: LoopProgress;
  pending_input?: PendingInput | null;
  priority?: number;
  forge_issue?: { url?: string; number?: number } | null;
  forge_pull?: { url?: string; number?: number } | null;
  /** What the worktree holds that the branch does not (decision 204); absent or null when clean. */
  worktree_changes?: {
    files: number;
    additions: number;
    deletions: number;
    untracked: number;
  } | null;
  /** Set while a follow-up round runs or after one ran (`round` counts them). */
  follow_up?: { origin: string; round: number } | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** One attempt of a step (`GET /v1/tasks/{id}/steps`, the detail's `steps[]`). */
export interface StepRun {
  id: number;
  step_index: number;
  step_id: string;
  step_name: string;
  step_type: string;
  group_id: string | null;
  attempt: number;
  iteration: number;
  loop_item: string | null;
  state: string;
  agent?: string | null;
  model?: string | null;
  failure_reason: string | null;
  skip_reason: string | null;
  exit_code: number | null;
  /** A gate's instructions while it waits; an attempt's summary once it finished. */
  result_summary?: string;
  input_tokens?: number | null;
  output_tokens?: number | null;
  cost_usd: number | null;
  started_at: string;
  finished_at: string | null;
  follow_up: boolean;
  has_transcript: boolean;
}

/** The detail's `workflow_steps[]`: the snapshot's top-level steps as authored. */
export interface WorkflowStep {
  index: number;
  id: string;
  name: string;
  type: string;
  instructions?: string;
}

/** The detail's `children`, over the whole subtree of a task with lanes. */
export interface ChildrenRollup {
  total: number;
  settled: number;
  by_state: Record<string, number>;
  blocked?: number[];
  awaiting_gate?: number[];
  cost_usd?: number | null;
  /** The task's own lanes whose work reached its branch, and the rest (decision 191). */
  merged?: number;
  unmerged?: number;
  left_out?: Array<{ task_id: number; lane_id: string; branch: string; reason: string }>;
}

/** `GET /v1/tasks/{id}`. */
export interface TaskDetail extends TaskRow {
  fields?: Record<string, string>;
  steps?: StepRun[];
  workflow_steps?: WorkflowStep[];
  children?: ChildrenRollup;
}

// ── Agents ─────────────────────────────────────────────────────────────────────────────────────

export interface QuotaWindow {
  name: string;
  used_percent: number;
  window: string | null;
  resets_at: string;
  resets_at_reported: boolean;
}

/** SPEC §2.4; null on the agent record means neither a reading nor an observation. */
export interface QuotaBlock {
  spent: boolean;
  used_percent: number | null;
  window: string | null;
  observed_at: string;
  resets_at: string;
  resets_at_reported: boolean;
  source: string;
  windows?: QuotaWindow[];
}

/** A record of `GET /v1/agents` (SPEC §2.3). */
export interface AgentRecord {
  name: string;
  available: boolean;
  version?: string;
  logged_in?: boolean | null;
  /** `tested`, `untested`, `incompatible`, or empty when nothing is installed. */
  version_verdict?: string;
  quota: QuotaBlock | null;
}

// ── Projects, workflows, resolve ───────────────────────────────────────────────────────────────

export interface Project {
  id: number;
  name: string;
  path: string;
  default_branch: string;
  default_workflow?: string | null;
}

/** SPEC §2.8 `fields[]`, with what the registry fills in (label, type) optional. */
export interface FieldDecl {
  name: string;
  label?: string;
  description?: string;
  /** `string`, `integer`, `number`, `boolean` or `enum`. */
  type?: string;
  required?: boolean;
  pattern?: string;
  values?: Array<string | number | boolean>;
  multiple?: boolean;
  default?: string | number | boolean | Array<string | number | boolean>;
}

/** A row of `GET /v1/workflows`. */
export interface WorkflowRow {
  name: string;
  scope: string;
  status: string;
  description?: string;
  platform_supported?: boolean;
  fields?: FieldDecl[];
  /** Whether a task of it needs a field filled in (one required without a default). */
  requires_input?: boolean;
}

/** `GET /v1/workflows/{name}`. */
export interface WorkflowDefinition {
  name: string;
  status?: string;
  errors?: unknown[];
  definition: { name: string; description?: string; fields?: FieldDecl[] } | null;
}

export interface Resolved {
  value: string;
  source: string;
}

/** `POST /v1/resolve` (SPEC §4.3): per top-level step, null fields for a non-agent step. */
export interface ResolveResult {
  workflow?: string;
  steps: Array<{
    index: number;
    id?: string;
    type?: string;
    agent: Resolved | null;
    model: Resolved | null;
    effort: Resolved | null;
  }>;
  branch?: { value: string; source: string; placeholder: boolean; error?: string };
}

// ── Diff ───────────────────────────────────────────────────────────────────────────────────────

export interface DiffFile {
  path: string;
  old_path?: string;
  status: string;
  additions: number;
  deletions: number;
  binary: boolean;
}

/** `GET /v1/tasks/{id}/diff?stat=true`. */
export interface DiffStat {
  source: string;
  base_branch: string;
  head?: string;
  files: DiffFile[];
  additions: number;
  deletions: number;
  truncated: boolean;
}

// ── Chats and events ───────────────────────────────────────────────────────────────────────────

export interface Chat {
  id: number;
  project_id: number;
  title: string;
  agent: string;
  model?: string | null;
  state: string;
  branch_name: string | null;
  linked_task_id?: number;
  handoff_task_id?: number;
  pending_input?: { kind: string; summary?: string; request?: unknown };
  created_at: string;
  updated_at?: string;
}

export interface ChatTurn {
  seq: number;
  state: string;
  message: string;
  result_text: string | null;
  failure_reason: string | null;
  failure_message?: string | null;
  cost_usd: number | null;
  started_at: string;
  finished_at: string | null;
}

export interface StoredEvent {
  id: number;
  kind: string;
  task_id: number | null;
  chat_id: number | null;
  project_id: number | null;
  payload: Record<string, unknown>;
}
