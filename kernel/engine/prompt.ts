/**
 * Where a task's `prompt` (SPEC §4.4 create rule 1) reaches its agents (decision 198). A workflow
 * places it with `{{.Task.Prompt}}` (the built-in `adhoc` does, after the title and description);
 * in a workflow that never reads `.Task.Prompt`, it opens the prompt of the task's first agent
 * step, so a chat hand-off's instructions or an API caller's words are never dropped. A workflow
 * with neither — no agent step and no `.Task.Prompt` — has no use for one: creation says so in
 * `warnings[]`.
 */
import { runsAgent, type StepTypes } from '../plugin/index.js';
import { everyStep, type StepDef, type WorkflowSnapshot } from './model.js';

/** Put before the step's own prompt: a template reference, so the words are data, never template. */
export const PROMPT_LEAD = '{{.Task.Prompt}}\n\n';

const READS_PROMPT = /\.Task\.Prompt\b/;

/** Whether any template of these steps (at any depth, as JSON text) reads `.Task.Prompt`. */
export function readsTaskPrompt(steps: readonly StepDef[]): boolean {
  return READS_PROMPT.test(JSON.stringify(steps));
}

/**
 * The id of the first agent step (one whose type declares `runsAgent`) this task's own run
 * reaches, in declaration order: top-level steps and the bodies of groups and loops; never a
 * lane's steps (a lane is a task of its own) or a merge resolver.
 */
export function firstAgentStepId(steps: readonly StepDef[], types: StepTypes): string | null {
  for (const step of steps) {
    if (runsAgent(types, step.type)) return step.id;
    if (Array.isArray(step.steps)) {
      const inner = firstAgentStepId(step.steps as StepDef[], types);
      if (inner) return inner;
    }
  }
  return null;
}

/** Whether this attempt's prompt opens with the task's prompt (see the module comment). */
export function carriesPrompt(
  task: { prompt: string | null },
  snapshot: WorkflowSnapshot,
  step: StepDef,
  types: StepTypes,
): boolean {
  if (!task.prompt || task.prompt.trim() === '') return false;
  if (!runsAgent(types, step.type) || step.literal_prompt === true) return false;
  return firstAgentStepId(snapshot.steps, types) === step.id && !readsTaskPrompt(snapshot.steps);
}

/**
 * The create warning for a prompt nothing will see: no step of the workflow (lanes' named
 * workflows included) is an agent step or reads `.Task.Prompt`.
 */
export function unusedPromptWarning(
  prompt: string | undefined,
  snapshot: WorkflowSnapshot,
  laneWorkflow: (name: string) => readonly StepDef[] | null,
  types: StepTypes,
): string | null {
  if (!prompt || prompt.trim() === '') return null;
  const steps = everyStep(snapshot.steps, laneWorkflow);
  if (steps.some((s) => runsAgent(types, s.type)) || readsTaskPrompt(steps)) return null;
  return `prompt is not used: workflow ${snapshot.name} has no agent step and no step reads {{.Task.Prompt}}; it is kept on the task, but nothing sees it`;
}
