/**
 * Daemon tools: the configuration in force, read-only and with the notify argv masked (SPEC §2.10),
 * and the doctor's report. `PATCH /v1/config` is deliberately not a tool (SPEC §4.1).
 */
import { DoctorQuerySchema } from '../../ops/schema.js';
import { defineTool } from '../tool.js';

/** What an MCP client sees in place of the notify command's argv (decision 124). */
export const MASKED = '<masked>';

export const daemonTools = [
  defineTool({
    name: 'config_show',
    description: 'The configuration in force, every key (read-only). The notify command is masked.',
    route: 'GET /v1/config',
    readOnly: true,
    run: ({ s }) => {
      const c = s.config.current();
      return {
        ...c,
        notify: { ...c.notify, command: c.notify.command.length > 0 ? [MASKED] : [] },
      };
    },
  }),
  defineTool({
    name: 'config_file',
    description:
      'Whether config.yaml on disk is what is in force: its path, and the last edit the daemon refused (null when none), with the reason. A refused edit leaves the last good configuration in force.',
    route: 'GET /v1/config/file',
    readOnly: true,
    run: ({ s }) => ({ file: s.config.file, rejected: s.config.fileRejection() }),
  }),
  defineTool({
    name: 'doctor_report',
    description:
      'The doctor report: daemon, data directory, database, agents, worktrees, container runtime. `probe: false` serves agent data from the cache.',
    route: 'GET /v1/doctor',
    readOnly: true,
    input: { schema: DoctorQuerySchema, from: 'query' },
    run: ({ s }, q) => s.doctor.report(q.probe !== false),
  }),
];
