/**
 * Branch names for new tasks (SPEC §2.10 `branch_template`): the task's own `branch_name`
 * verbatim, else the project's template, else the config's, else `svc/{id}-{slug}`. Templates see
 * `.ID`, `.Title`, `.Slug`, `.BaseBranch`, `.Fields.NAME` (an error when unset), `.Project.Name`,
 * `.Path`, `.DefaultBranch` and `slug`; the output is trimmed and must be a legal branch name.
 */

import { checkTemplate, renderTemplate } from '../../lib/template/index.js';
import { SvcError } from '../errors.js';
import type { Project } from '../projects/index.js';
import { branchNameProblem, branchSlug, builtinBranch } from './refname.js';

export type BranchSource = 'task' | 'project' | 'config' | 'default';

export interface BranchInput {
  id: number;
  title: string;
  baseBranch: string;
  fields: Record<string, string>;
  project: Project;
  literal?: string;
  configTemplate: string;
}

export function branchTemplateProblem(template: string): string | null {
  const err = checkTemplate(template, { name: 'branch_template' });
  return err ? err.message : null;
}

export function branchSourceFor(
  input: Pick<BranchInput, 'literal' | 'project' | 'configTemplate'>,
): BranchSource {
  if (input.literal !== undefined && input.literal !== '') return 'task';
  if (input.project.branch_template) return 'project';
  if (input.configTemplate) return 'config';
  return 'default';
}

export function renderBranch(template: string, input: BranchInput): string {
  const data = {
    ID: input.id,
    Title: input.title,
    Slug: branchSlug(input.title),
    BaseBranch: input.baseBranch,
    Fields: input.fields,
    Project: {
      Name: input.project.name,
      Path: input.project.path,
      DefaultBranch: input.project.default_branch,
    },
    Path: input.project.path,
    DefaultBranch: input.project.default_branch,
  };
  return renderTemplate(template, data, { name: 'branch_template', missingKey: 'error' }).trim();
}

/** The branch a task gets; throws 400 naming the source when the result is not a legal name. */
export function branchFor(input: BranchInput): { name: string; source: BranchSource } {
  const source = branchSourceFor(input);
  let name: string;
  try {
    if (source === 'task') name = (input.literal as string).trim();
    else if (source === 'project')
      name = renderBranch(input.project.branch_template as string, input);
    else if (source === 'config') name = renderBranch(input.configTemplate, input);
    else name = builtinBranch(input.id, input.title);
  } catch (err) {
    throw new SvcError(
      'validation_failed',
      `the ${source} branch template failed: ${(err as Error).message}`,
      { field: 'branch_name' },
    );
  }
  const problem = branchNameProblem(name);
  if (problem) {
    throw new SvcError(
      'validation_failed',
      `branch name ${JSON.stringify(name)} (from the ${source} branch rule) ${problem}`,
      {
        field: 'branch_name',
      },
    );
  }
  return { name, source };
}
