/** Project tools (SPEC §4.2): mirrors of the project routes, through the projects service. */
import {
  CreateProjectSchema,
  DeleteProjectQuerySchema,
  PatchProjectSchema,
} from '../../projects/index.js';
import { defineTool, type ToolId } from '../tool.js';

const PROJECT: ToolId = { key: 'project_id', what: 'project' };

export const projectTools = [
  defineTool({
    name: 'projects_list',
    description: 'List the registered projects (git repositories svc runs tasks in).',
    route: 'GET /v1/projects',
    readOnly: true,
    run: ({ s }) => ({ projects: s.projects.list() }),
  }),
  defineTool({
    name: 'projects_show',
    description: 'One project by id.',
    route: 'GET /v1/projects/:id',
    readOnly: true,
    ids: [PROJECT],
    run: ({ s }, _input, ids) => s.projects.require(ids.project_id as number),
  }),
  defineTool({
    name: 'projects_create',
    description:
      'Register a git repository as a project. `path` is the repository on this machine; the rest defaults from it.',
    route: 'POST /v1/projects',
    readOnly: false,
    input: { schema: CreateProjectSchema, from: 'body' },
    run: ({ s }, body) => s.projects.create(body),
  }),
  defineTool({
    name: 'projects_update',
    description:
      'Change a project: name, path, default branch or workflow, task cap, branch template.',
    route: 'PATCH /v1/projects/:id',
    readOnly: false,
    ids: [PROJECT],
    guard: (s, ids) => s.projects.require(ids.project_id as number),
    input: { schema: PatchProjectSchema, from: 'body' },
    run: async ({ s }, body, ids) => {
      const id = ids.project_id as number;
      const project = await s.projects.patch(id, body);
      s.scheduler.poke();
      return project;
    },
  }),
  defineTool({
    name: 'projects_delete',
    description:
      'Delete a project and its task rows. Refused while it has tasks that are not archived, unless `force` (which archives them first and is refused while any runs).',
    route: 'DELETE /v1/projects/:id',
    readOnly: false,
    ids: [PROJECT],
    input: { schema: DeleteProjectQuerySchema, from: 'query' },
    run: async ({ s }, q, ids) => {
      await s.engine.deleteProject(ids.project_id as number, q.force);
      return { deleted: true };
    },
  }),
];
