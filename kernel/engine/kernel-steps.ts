/**
 * The step types the kernel itself names (decision 225), in one place. Everything else the kernel
 * knows about a step type it asks the type's declared hooks (kernel/plugin/step-traits.ts), so a
 * new control-flow type is one folder. These two stay because the kernel writes steps of them on
 * its own, with no workflow file behind them:
 * - `agent`: the repair round and a prompt follow-up (SPEC §4.4) are agent steps the kernel builds
 *   from a human's words, and a fan_out merge resolver is an agent step written without `type:`.
 * - `command`: a `run` follow-up is a command step the kernel builds from the human's command.
 * The registry must hold both (the built-in plugins register them); a test keeps every other kernel
 * file from comparing a step's type to a name (test/unit/kernel/step-type-names.test.ts).
 */

/** The step type of repair rounds, prompt follow-ups and the merge resolver. */
export const AGENT_STEP = 'agent';

/** The step type of a `run` follow-up. */
export const COMMAND_STEP = 'command';
