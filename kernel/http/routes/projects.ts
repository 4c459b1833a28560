/** Project routes (SPEC §4.2). Record fields: docs/projects.md. */
import type { FastifyInstance } from 'fastify';
import { parseId, parseWith } from '../../input/index.js';
import {
  CreateProjectSchema,
  DeleteProjectQuerySchema,
  PatchProjectSchema,
} from '../../projects/index.js';
import type { Services } from '../../services.js';

export function projectRoutes(app: FastifyInstance, s: Services): void {
  app.get('/v1/projects', async () => s.projects.list());

  app.post('/v1/projects', async (req, reply) => {
    const body = parseWith(CreateProjectSchema, req.body);
    return reply.code(201).send(await s.projects.create(body));
  });

  app.get<{ Params: { id: string } }>('/v1/projects/:id', async (req) =>
    s.projects.require(parseId(req.params.id, 'project')),
  );

  app.patch<{ Params: { id: string } }>('/v1/projects/:id', async (req) => {
    const id = parseId(req.params.id, 'project');
    s.projects.require(id);
    const project = await s.projects.patch(id, parseWith(PatchProjectSchema, req.body));
    s.scheduler.poke();
    return project;
  });

  app.delete<{ Params: { id: string } }>('/v1/projects/:id', async (req, reply) => {
    const id = parseId(req.params.id, 'project');
    const q = parseWith(DeleteProjectQuerySchema, req.query ?? {}, 'query');
    await s.engine.deleteProject(id, q.force);
    return reply.code(204).send();
  });
}
