/** Request bodies of the project routes (SPEC §4.2); the record's fields are documented in docs/projects.md. */
import { z } from 'zod';
import { boundedString, branchField, pathField } from '../input/index.js';

const ProjectName = boundedString('name', 512).refine(
  (s) => s.trim() !== '',
  'name must not be blank',
);

/** What each project field means, shared by create and patch (MCP tool schemas show them). */
const described = {
  name: 'A unique display name; default: the directory name.',
  default_branch: 'The branch tasks start from by default; default: the branch checked out now.',
  default_workflow: 'The workflow tasks run when they name none (null: adhoc).',
  max_parallel_tasks:
    'At most this many of the project’s tasks run at once (null: only the global cap).',
  branch_template:
    'Template for task branch names, e.g. "feat/{id}-{slug}" (null: the config’s, else svc/{id}-{slug}).',
};

export const CreateProjectSchema = z.strictObject({
  path: pathField('path').describe(
    'The git repository on this machine: an absolute path to its working tree.',
  ),
  name: ProjectName.optional().describe(described.name),
  default_branch: branchField('default_branch').optional().describe(described.default_branch),
  default_workflow: z.string().min(1).nullable().optional().describe(described.default_workflow),
  max_parallel_tasks: z
    .number()
    .int()
    .min(1, 'max_parallel_tasks must be at least 1')
    .nullable()
    .optional()
    .describe(described.max_parallel_tasks),
  branch_template: z.string().nullable().optional().describe(described.branch_template),
});

export const PatchProjectSchema = z.strictObject({
  path: pathField('path')
    .optional()
    .describe('A new path for the repository (it moved); it must be the same repository.'),
  name: ProjectName.optional().describe(described.name),
  default_branch: branchField('default_branch').optional().describe(described.default_branch),
  default_workflow: z.string().min(1).nullable().optional().describe(described.default_workflow),
  max_parallel_tasks: z
    .number()
    .int()
    .min(1, 'max_parallel_tasks must be at least 1')
    .nullable()
    .optional()
    .describe(described.max_parallel_tasks),
  branch_template: z.string().nullable().optional().describe(described.branch_template),
});

export type CreateProject = z.infer<typeof CreateProjectSchema>;
export type PatchProject = z.infer<typeof PatchProjectSchema>;

/** `DELETE /v1/projects/{id}` query: `force` is on when present, unless it reads `false` or `0`. */
export const DeleteProjectQuerySchema = z.object({
  force: z
    .string()
    .optional()
    .transform((v) => v !== undefined && v !== 'false' && v !== '0')
    .describe(
      'true: archive the project’s unarchived tasks first (refused while any runs); without it a project with such tasks is refused.',
    ),
});
