/**
 * The built-in workflows (SPEC §2.7), compiled in as YAML text so they load, validate, hash and
 * list exactly like files: `adhoc` (what a task without a workflow runs), `create-workflow` (an
 * agent writes a new workflow file into the project) and `update-workflows` (an agent brings the
 * project's workflow files up to the current format and validates each). Lowest precedence: a
 * global or project file of the same name shadows them. A test validates all three.
 */
import { parse } from 'yaml';

/**
 * A compact reference of the format for the agent prompts. Template braces are escaped
 * (`{{"{{"}}`) because the prompts are templates themselves.
 */
const FORMAT_REFERENCE = `Workflow file format (YAML; unknown keys are errors):

  name: <name>                 # required; no spaces, "/" or "\\"
  description: <text>
  platforms: [linux, darwin, windows, posix]   # optional; empty means anywhere
  fields:                      # optional task inputs, each a string value in .Task.Fields
    - name: <slug>             # lowercase letters, digits, - _ .
      label: <text>
      description: <text>
      type: string | integer | number | boolean | enum   # default string
      required: true | false
      pattern: <regex>         # string only; not with enum
      values: [a, b]           # enum only: non-empty, unique, no commas
      multiple: true           # enum only: a comma-separated set
      default: <value>         # checked against the declaration
  defaults:                    # inherited by every step; a step's own value wins
    agent: claude | codex | cursor
    model: <model>
    effort: <effort>
    permission_mode: full-auto | restricted
    on_input: wait | deny | require
    input_timeout: 24h
    max_retries: 1             # attempts after the first
    retry_backoff: 0s
    timeout: 60m
    container: {image: <image>}   # command steps and checks run in it; "" forces the host
  steps: [...]                 # required, non-empty, run top to bottom

Every step: id (slug, unique in the file), name, type, and by type:
  agent      prompt (required), agent, model, effort, permission_mode, on_input,
             input_timeout, check, check_timeout, if, max_retries, retry_backoff, timeout,
             allow_failure
  command    run (required), shell (sh | pwsh | cmd), env (map), check, check_timeout,
             if, max_retries, retry_backoff, timeout, allow_failure
  manual     instructions (required), if, max_retries, retry_backoff, timeout  (a human gate)
  parallel   steps (required; agent and command steps only), max_parallel, if,
             max_retries, retry_backoff, timeout
  fan_out    lanes (list of {id, workflow | steps, if, fields, agent, model, effort,
             priority}) or lane (one lane plus for_each), merge {on_conflict: block | agent,
             agent: <agent step with an id>}, if, max_retries, retry_backoff, timeout
  condition  if (required): false ends the workflow (in a loop: that iteration)
  loop       steps (required), count or for_each (exactly one), max_iterations, if, timeout
  break      if (required); only directly in a loop body; true leaves the loop
  include    workflow (required): splices that workflow's steps in at task creation

Durations are like 90s, 45m, 1h30m. Templates are Go text/template:
{{"{{"}}.Task.Title}}, {{"{{"}}.Task.Description}}, {{"{{"}}.Task.Fields.NAME}},
{{"{{"}}.Steps.ID.Result}} (an earlier step's output), {{"{{"}}.Loop.Item}},
{{"{{"}}if eq .Task.Fields.kind "bug"}}...{{"{{"}}else}}...{{"{{"}}end}}, and the functions
and, or, not, eq, ne, lt, le, gt, ge, len, index, printf, slug. A guard (if:) must render exactly
true or false.`;

function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((l) => (l === '' ? '' : pad + l))
    .join('\n');
}

const ADHOC = `# Built in: what a task runs when it names no workflow.
name: adhoc
description: One agent step that does the task as described.
steps:
  - id: run
    type: agent
    max_retries: 0
    prompt: |
      You are working on a task in a git worktree created for it: it is your current directory,
      and its branch is yours alone. Work unattended as far as you can; if something is truly
      ambiguous you may ask, otherwise make a sensible choice and say so in your final message.

      Do the task below. Keep the change to what it asks and follow the conventions you find in
      the repository (structure, style, tests, documentation). Run the project's relevant checks
      or tests when it has them. Everything you change, committed or not, is reviewed afterwards
      as a diff against {{.Task.BaseBranch}}; commit finished work with messages that say why.

      Task: {{.Task.Title}}
      {{- if .Task.Description}}

      {{.Task.Description}}
      {{- end}}
      {{- if .Task.Prompt}}

      {{.Task.Prompt}}
      {{- end}}
`;

const CREATE_WORKFLOW = `# Built in: an agent writes a new workflow file into the project.
name: create-workflow
description: An agent writes a new workflow file for this project from your description.
fields:
  - name: workflow_name
    label: Workflow name
    description: Name of the new workflow (the agent picks one when empty).
    pattern: '^[a-z0-9][a-z0-9_.-]*$'
steps:
  - id: write
    type: agent
    prompt: |
      Write a new svc workflow for this repository. svc runs tasks as workflows: ordered steps
      (agent CLIs, shell commands, human gates, parallel groups, fan-out lanes, loops) inside a
      git worktree of the project. You are in such a worktree now.

      What the workflow should do:
      {{.Task.Title}}
      {{- if .Task.Description}}

      {{.Task.Description}}
      {{- end}}

      {{with index .Task.Fields "workflow_name"}}Name it "{{.}}" and write it to
      .svc/workflows/{{.}}.yaml.{{else}}Choose a short lowercase name (letters, digits, -, _ or .)
      and write the file to .svc/workflows/<name>.yaml.{{end}} Do not overwrite an existing file:
      if the name is taken, stop and say so.

      Before writing, look at the repository: how it is built, tested and linted, and which
      commands a step should run. Prefer command steps for anything a shell can check (tests,
      linters, builds) and give agent steps a check: where one is cheap. Put a manual step before
      anything a human should approve. Give every step an id, and comment the file where a
      choice is not obvious.

      ${indent(FORMAT_REFERENCE, 6).trimStart()}

      When the file is written, run \`svc workflow validate .svc/workflows/<name>.yaml\` if the
      svc command is available and fix every finding it reports. Commit the file with a message
      that says what the workflow is for. In your final message, show the file and explain each
      step in a sentence.
`;

const UPDATE_WORKFLOWS = `# Built in: an agent brings the project's workflow files up to the current format.
name: update-workflows
description: Rewrite this project's workflow files to the current format and validate each.
steps:
  - id: update
    type: agent
    prompt: |
      Bring every svc workflow file of this repository up to the current workflow format. You
      are in a git worktree of the project; the files are .svc/workflows/*.yaml (and *.yml).
      If there are none but .vincent/workflows/ holds workflow files (the earlier system), copy
      them to .svc/workflows/ first and update the copies.

      ${indent(FORMAT_REFERENCE, 6).trimStart()}

      For each file:
      1. Run \`svc workflow validate <file>\` (when the svc command is available) and read every
         finding: each names a path such as steps[2].lanes[0].workflow and a line.
      2. Fix the file so it validates, changing as little as possible: keep its comments, key
         order, blank lines and block scalars, keep every step id (other files and running
         tasks refer to them), and keep what each step does. Typical fixes: a key that moved or
         was renamed, an agent name (claude, codex, cursor), a platform token (darwin, not
         macos), a duration without a unit, a step kind in a place it may not stand.
      3. Validate again until it reports nothing.

      {{- if .Task.Description}}

      Notes from whoever started this task:
      {{.Task.Description}}
      {{- end}}

      Commit the changes with a message that lists what changed in each file and why. If a
      file cannot be fixed without changing what it does, leave it as it is and explain why in
      your final message.
    check: svc workflow validate .svc/workflows
`;

export interface BuiltinWorkflow {
  name: string;
  text: string;
}

export const BUILTIN_WORKFLOWS: readonly BuiltinWorkflow[] = [
  { name: 'adhoc', text: ADHOC },
  { name: 'create-workflow', text: CREATE_WORKFLOW },
  { name: 'update-workflows', text: UPDATE_WORKFLOWS },
];

/** The starter file `POST /v1/workflows` writes when no `from` is given. */
export function starterWorkflow(name: string): string {
  // A name YAML would read as something else (`1.0`, `true`) is quoted.
  const scalar = parse(name) === name ? name : JSON.stringify(name);
  return `# A new svc workflow. The format is described in docs/workflows.md; validate with
# \`svc workflow validate <file>\`.
name: ${scalar}
description: ""
# fields:            # task inputs, read in templates as .Task.Fields.<name>
#   - name: ticket
#     required: true
# defaults:          # inherited by every step
#   agent: claude
steps:
  - id: implement
    type: agent
    prompt: |
      {{.Task.Title}}

      {{.Task.Description}}
  # - id: test
  #   type: command
  #   run: npm test
`;
}
