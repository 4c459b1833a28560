/**
 * The command step (SPEC §2.8): a shell command in the worktree. The load-time half is here and in
 * schema.ts; `run` (run.ts) is the engine's half. One rule needs more than the schema: a pinned container image (the
 * workflow's `defaults.container.image`, else the daemon's `container.image`) runs Linux, so
 * `shell: pwsh` and `shell: cmd` are refused at load (SPEC §2.10 container rules).
 */
import { defineStepType } from '../../../kernel/plugin/index.js';
import { COMMAND_REASONS, runCommand } from './run.js';
import { COMMAND_COMMON, COMMAND_ROWS, type CommandStep, CommandStepSchema } from './schema.js';

export const commandStep = defineStepType<CommandStep>({
  meta: {
    type: 'command',
    schema: CommandStepSchema,
    common: COMMAND_COMMON,
    rows: COMMAND_ROWS,
    docs: {
      summary: 'Run a shell command in the worktree; succeeds on exit 0 (and a passing check).',
      url: 'docs/workflows.md#command',
    },
    reasons: COMMAND_REASONS,
    contexts: ['body', 'parallel', 'loop'],
    // `env:` values are literal: the engine passes them as they are written.
    templates: ['run', 'check', 'if'],
  },
  validate(def, ctx) {
    if ((def.shell === 'pwsh' || def.shell === 'cmd') && ctx.containerImage !== '') {
      return [
        {
          path: ['shell'],
          code: 'shell_with_container',
          message: `shell: ${def.shell} cannot run in the pinned container image ${ctx.containerImage}; use sh, or set defaults.container.image: "" to run on the host`,
        },
      ];
    }
    return [];
  },
  run: runCommand,
});
