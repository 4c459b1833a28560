/** Shared set-up for workflow unit tests: validate text with the built-in step types. */
import {
  type ValidateOptions,
  validateWorkflowText,
  type WorkflowValidation,
} from '../../../kernel/workflows/index.js';
import { builtinStepTypes, DEFAULT_LIMITS, TEST_AGENTS } from '../../support/step-tester.js';

export async function options(over: Partial<ValidateOptions> = {}): Promise<ValidateOptions> {
  return {
    types: await builtinStepTypes(),
    limits: DEFAULT_LIMITS,
    containerImage: '',
    agents: TEST_AGENTS,
    ...over,
  };
}

export async function check(
  text: string,
  over: Partial<ValidateOptions> = {},
): Promise<WorkflowValidation> {
  return validateWorkflowText(text, await options(over));
}

/** `path code` of each error, the form assertions read best in. */
export function codes(r: WorkflowValidation): string[] {
  return r.errors.map((f) => `${f.path} ${f.code}`);
}

/** YAML text from lines, so fixtures read as files. */
export function yaml(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}
