/**
 * The API shapes the web board reads (docs/api.md, docs/tasks.md), narrowed to what it draws.
 * Every field a newer daemon may omit is optional and enumerations stay strings, so an unknown
 * state or action still renders as text.
 */

export interface LoopProgress {
  iteration: number;
  max_iterations: number;
  total?: number;
  item?: string;
}

export interface Question {
  text: string;
  header?: string;
  options?: string[];
  multi_select?: boolean;
}

export interface PendingInput {
  kind: string;
  questions?: Question[];
  permission?: { tool: string; summary: string };
}

export interface Task {
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
  attempt: number;
  iteration: number;
  loop_item: string | null;
  state: string;
  agent?: string | null;
  model?: string | null;
  failure_reason: string | null;
  skip_reason: string | null;
  exit_code: number | null;
  result_summary?: string;
  input_tokens?: number | null;
  output_tokens?: number | null;
  cost_usd: number | null;
  started_at: string;
  finished_at: string | null;
  follow_up: boolean;
  has_transcript: boolean;
}

export interface WorkflowStep {
  index: number;
  id: string;
  name: string;
  type: string;
  instructions?: string;
}

export interface TaskDetail extends Task {
  fields?: Record<string, string>;
  steps?: StepRun[];
  workflow_steps?: WorkflowStep[];
  children?: { total: number; settled: number; by_state: Record<string, number> };
}

export interface QuotaBlock {
  spent: boolean;
  used_percent: number | null;
  window: string | null;
  resets_at: string;
}

export interface Agent {
  name: string;
  available: boolean;
  version?: string;
  logged_in?: boolean | null;
  version_verdict?: string;
  quota: QuotaBlock | null;
}

export interface Project {
  id: number;
  name: string;
  path: string;
  default_branch: string;
  default_workflow?: string | null;
}

export interface FieldDecl {
  name: string;
  label?: string;
  description?: string;
  type?: string;
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
  requires_input?: boolean;
}

export interface Resolved {
  value: string;
  source: string;
}

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

export interface DiffFile {
  path: string;
  old_path?: string;
  status: string;
  additions: number;
  deletions: number;
  binary: boolean;
}

export interface DiffStat {
  source: string;
  base_branch?: string;
  head?: string;
  files: DiffFile[];
  additions: number;
  deletions: number;
  truncated: boolean;
}

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
