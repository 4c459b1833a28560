/**
 * The API shapes the board reads (SPEC §2.1–2.4, §2.8 fields, §2.10 tui, §4.3 resolve), narrowed
 * to the fields it draws. Every field a newer daemon may omit is optional, and enumerations stay
 * plain strings so an unknown state or reason renders as text (SPEC §9).
 */

export interface LoopProgress {
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
  multi_select?: boolean;
}

export interface PendingInput {
  kind: 'question' | 'permission' | string;
  questions?: PendingQuestion[];
  permission?: { tool: string; summary: string };
}

export interface TaskRow {
  id: number;
  project_id: number;
  project_name?: string;
  title: string;
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
  forge_issue?: { url?: string; number?: number } | null;
  forge_pull?: { url?: string; number?: number } | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

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
  failure_reason: string | null;
  skip_reason: string | null;
  exit_code: number | null;
  cost_usd: number | null;
  started_at: string;
  finished_at: string | null;
  follow_up: boolean;
  has_transcript: boolean;
}

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

export interface TaskDetail extends TaskRow {
  description?: string;
  fields?: Record<string, string>;
  steps?: StepRun[];
  workflow_steps?: Array<{ index: number; id: string; name: string; type: string }>;
  children?: ChildrenRollup;
}

export interface QuotaWindow {
  name: string;
  used_percent: number;
  window: string | null;
  resets_at: string;
  resets_at_reported: boolean;
}

/** SPEC §2.4; null on the agent record means neither a reading nor an observation. */
export interface Quota {
  spent: boolean;
  used_percent: number | null;
  window: string | null;
  observed_at: string;
  resets_at: string;
  resets_at_reported: boolean;
  source: string;
  windows?: QuotaWindow[];
}

export interface AgentRecord {
  name: string;
  available: boolean;
  version?: string;
  logged_in?: boolean | null;
  quota: Quota | null;
}

export interface TuiSettings {
  group_by: Array<'project' | 'workflow' | string>;
  hyperlinks: boolean;
  keys: Record<string, string>;
}

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
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'enum' | string;
  required?: boolean;
  pattern?: string;
  values?: Array<string | number | boolean>;
  multiple?: boolean;
  default?: string | number | boolean | Array<string | number | boolean>;
}

export interface WorkflowRow {
  name: string;
  scope: string;
  status: string;
  description?: string;
  platform_supported?: boolean;
  fields?: FieldDecl[];
}

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
