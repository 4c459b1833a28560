/**
 * What a stopped task waits on, in words a person acts on (issue 19 points 7–9): the block reason
 * and its message, a gate's instructions, the agent's question with its options and their
 * descriptions, and uncommitted work the branch does not have. `svc task show`, the end of
 * `svc task logs -f` and the board's detail pane say the same things.
 */

export interface Question {
  text: string;
  header?: string;
  options?: string[];
  /** One per option, when the agent gave them (`option_descriptions`, absent from older daemons). */
  option_descriptions?: string[];
  multi_select?: boolean;
}

export interface Pending {
  kind: string;
  questions?: Question[];
  permission?: { tool: string; summary: string };
}

export interface WorktreeChanges {
  files: number;
  additions: number;
  deletions: number;
  untracked: number;
}

export interface TaskLike {
  id: number;
  state: string;
  branch_name?: string | null;
  worktree_path?: string | null;
  block_reason?: string | null;
  block_detail?: string | null;
  pending_input?: Pending | null;
  pause_requested?: boolean;
  available_actions?: string[];
  worktree_changes?: WorktreeChanges | null;
  steps?: Array<{
    step_id: string;
    step_name?: string;
    step_type: string;
    state: string;
    result_summary?: string | null;
  }>;
}

const indent = (text: string, by = '  ') =>
  text
    .replace(/\n+$/, '')
    .split('\n')
    .map((l) => `${by}${l}`);

/** The agent's questions with numbered options (and what each means), or the permission asked. */
export function pendingLines(p: Pending): string[] {
  if (p.kind === 'permission')
    return [
      `the agent asks permission: ${p.permission?.tool ?? '?'} ${p.permission?.summary ?? ''}`.trimEnd(),
    ];
  return (p.questions ?? []).flatMap((q) => [
    `the agent asks: ${q.text}${q.multi_select ? ' (several may be picked)' : ''}`,
    ...(q.options ?? []).map((o, i) => {
      const d = q.option_descriptions?.[i];
      return `  ${i + 1}. ${o}${d ? ` — ${d}` : ''}`;
    }),
  ]);
}

/** The open gate's instructions: its running manual step run carries them (`result_summary`). */
export function gateInstructions(t: TaskLike): { step: string; text: string } | null {
  const gate = [...(t.steps ?? [])]
    .reverse()
    .find((s) => s.step_type === 'manual' && s.state === 'running' && s.result_summary);
  return gate
    ? { step: gate.step_name || gate.step_id, text: gate.result_summary as string }
    : null;
}

/** `3 files (+12 −4, 1 untracked)`. */
export function changesText(c: WorktreeChanges): string {
  const extra = c.untracked > 0 ? `, ${c.untracked} untracked` : '';
  return `${c.files} file${c.files === 1 ? '' : 's'} (+${c.additions} −${c.deletions}${extra})`;
}

/** The warning about work only the worktree holds (decision 204); empty when there is none. */
export function changesLines(t: TaskLike): string[] {
  const c = t.worktree_changes;
  if (!c) return [];
  return [
    `uncommitted: ${changesText(c)} in ${t.worktree_path ?? 'the worktree'}, not on ${t.branch_name ?? 'the branch'}; svc never commits for you: commit them there, or use \`commit: true\` on the step`,
  ];
}

const actionHint = (t: TaskLike, actions: string[]) =>
  actions
    .filter((a) => t.available_actions?.includes(a))
    .map((a) => `svc task ${a.replace('_', '-')} ${t.id}`)
    .join(' · ');

/** Lines saying what the stopped task waits on and what can be done about it. */
export function stoppedLines(t: TaskLike): string[] {
  const out: string[] = [];
  switch (t.state) {
    case 'blocked':
      out.push(`blocked: ${t.block_reason ?? 'unknown reason'}`);
      if (t.block_detail) out.push(...indent(t.block_detail));
      break;
    case 'awaiting_gate': {
      const gate = gateInstructions(t);
      out.push(gate ? `waiting for your approval at ${gate.step}:` : 'waiting for your approval');
      if (gate) out.push(...indent(gate.text));
      break;
    }
    case 'awaiting_input':
      if (t.pending_input) out.push(...pendingLines(t.pending_input));
      break;
    case 'paused':
      out.push('paused: resume it to continue');
      break;
  }
  if (t.state === 'running' && t.pause_requested)
    out.push('pause requested: it holds at the next step boundary (resume withdraws the request)');
  out.push(...changesLines(t));
  const hint = actionHint(
    t,
    t.state === 'awaiting_input'
      ? ['answer', 'cancel']
      : ['approve', 'reject', 'retry', 'repair', 'skip', 'resume'],
  );
  if (hint && ['blocked', 'awaiting_gate', 'awaiting_input', 'paused'].includes(t.state))
    out.push(`next: ${hint}`);
  return out;
}
