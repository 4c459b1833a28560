/** Daemon routes (SPEC §4.1): health (the one unauthenticated route), info, stop. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { NEWEST_MIGRATION, schemaVersion } from '../../store/index.js';

export function daemonRoutes(app: FastifyInstance, s: Services): void {
  app.get('/v1/health', async () => ({ status: 'ok', version: s.daemon.version }));

  app.get('/v1/info', async () => {
    const c = s.config.current();
    return {
      version: s.daemon.version,
      pid: s.daemon.pid,
      started_at: new Date(s.daemon.startedAtMs).toISOString(),
      uptime_seconds: Math.floor((s.clock.now() - s.daemon.startedAtMs) / 1000),
      listen: c.listen,
      url: s.daemon.url,
      data_dir: s.paths.dataDir,
      config_dir: s.paths.configDir,
      schema_version: schemaVersion(s.store.db),
      newest_migration: NEWEST_MIGRATION.version,
      caps: {
        max_parallel_tasks: c.max_parallel_tasks,
        max_parallel_chats: c.max_parallel_chats,
        parallel_max_parallel: c.parallel.max_parallel,
        fan_out_max_depth: c.fan_out.max_depth,
        fan_out_max_tasks: c.fan_out.max_tasks,
        loop_max_iterations: c.loop.max_iterations,
        include_max_depth: c.include.max_depth,
        mcp_max_depth: c.mcp.max_depth,
        mcp_max_tasks: c.mcp.max_tasks,
        max_task_cost_usd: c.max_task_cost_usd,
        max_tree_cost_usd: c.max_tree_cost_usd,
      },
      plugins: s.registry.plugins.map((p) => ({
        name: p.name,
        source: p.source,
        file: p.file,
        provides: p.provides,
      })),
      ...(await s.daemon.infoSections()),
    };
  });

  app.post('/v1/daemon/stop', async (_req, reply) => {
    // Answer first, then stop: the client learns the request was taken before the socket closes.
    reply.raw.once('finish', () => setImmediate(() => s.daemon.requestStop()));
    return reply.code(202).send({ stopping: true });
  });
}
