/** Request bodies of the project routes (SPEC §4.2); the record's fields are documented in docs/projects.md. */
import { z } from 'zod';
import { boundedString } from '../http/fields.js';
import { branchField, pathField } from '../http/ref-fields.js';

const ProjectName = boundedString('name', 512).refine(
  (s) => s.trim() !== '',
  'name must not be blank',
);

export const CreateProjectSchema = z.strictObject({
  path: pathField('path'),
  name: ProjectName.optional(),
  default_branch: branchField('default_branch').optional(),
  default_workflow: z.string().min(1).nullable().optional(),
  max_parallel_tasks: z
    .number()
    .int()
    .min(1, 'max_parallel_tasks must be at least 1')
    .nullable()
    .optional(),
  branch_template: z.string().nullable().optional(),
});

export const PatchProjectSchema = z.strictObject({
  path: pathField('path').optional(),
  name: ProjectName.optional(),
  default_branch: branchField('default_branch').optional(),
  default_workflow: z.string().min(1).nullable().optional(),
  max_parallel_tasks: z
    .number()
    .int()
    .min(1, 'max_parallel_tasks must be at least 1')
    .nullable()
    .optional(),
  branch_template: z.string().nullable().optional(),
});

export type CreateProject = z.infer<typeof CreateProjectSchema>;
export type PatchProject = z.infer<typeof PatchProjectSchema>;

/** `DELETE /v1/projects/{id}` query: `force` is on when present, unless it reads `false` or `0`. */
export const DeleteProjectQuerySchema = z.object({
  force: z
    .string()
    .optional()
    .transform((v) => v !== undefined && v !== 'false' && v !== '0'),
});
