/**
 * projects: registered repositories (SPEC §4.2; fields in docs/projects.md).
 * Uses: store, events, clock, git. Used by: engine (tasks), workflows (project scope), http.
 */
export { CreateProjectSchema, DeleteProjectQuerySchema, PatchProjectSchema } from './schema.js';
export { type Project, ProjectService, type TemplateCheck } from './service.js';
