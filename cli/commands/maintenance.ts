/**
 * Keeping svc healthy from the command line: `svc backup`, `svc restore`, `svc orphans`, `svc gc`
 * and `svc update check` (SPEC §4.1, §2.9). All but restore go through the API; restore is
 * client-side by design (backup rule 4) and needs the daemon down — it takes the daemon lock.
 */
import { resolve } from 'node:path';
import { DaemonLockedError } from '../../kernel/daemon/index.js';
import {
  type BackupResult,
  backupName,
  type MaintenanceBody,
  RestoreError,
  restoreBackup,
  type UpdateView,
} from '../../kernel/ops/index.js';
import { type Command, JSON_OPTION } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { formatBytes } from '../format.js';

export const backup: Command = {
  name: 'backup',
  summary:
    'Write a backup archive (database, transcripts, workflows, triggers, config.yaml) while the daemon runs; default ./svc-backup-<time>.tar.gz',
  usage: 'svc backup [path]',
  options: JSON_OPTION,
  async run(ctx) {
    // The daemon refuses relative paths; the client resolves them against its own directory.
    const path = resolve(process.cwd(), ctx.args[0] ?? backupName(Date.now()));
    const r = await ctx.client().post<BackupResult>('/v1/daemon/backup', { path });
    if (ctx.options.json) ctx.out(JSON.stringify(r, null, 2));
    else
      ctx.out(
        `wrote ${r.path} (${formatBytes(r.bytes)}; database ${formatBytes(r.database_bytes)}, transcripts ${formatBytes(r.transcript_bytes)}, schema ${r.schema_version}, taken ${r.created_at})`,
      );
    return EXIT.ok;
  },
};

export const restore: Command = {
  name: 'restore',
  summary:
    'Restore a backup archive into the data and config directories; the daemon must be stopped',
  usage: 'svc restore <archive> [--force]',
  options: {
    force: {
      type: 'boolean',
      description:
        'move existing data aside into {data_dir}/pre-restore-<time>/ instead of refusing',
    },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const archive = ctx.args[0];
    if (!archive) {
      ctx.err('usage: svc restore <archive> [--force]');
      return EXIT.usage;
    }
    try {
      const r = await restoreBackup(resolve(process.cwd(), archive), ctx.paths, {
        force: Boolean(ctx.options.force),
      });
      if (ctx.options.json) ctx.out(JSON.stringify(r, null, 2));
      else {
        ctx.out(
          `restored ${r.archive} (taken ${r.created_at} by svc ${r.svc_version}, schema ${r.schema_version})`,
        );
        ctx.out(
          `${r.tasks} tasks, ${r.step_runs} step runs, ${r.transcript_files} transcript files, ${r.workflow_files} workflow files, ${r.trigger_files} trigger files${r.config_file ? ', config.yaml' : ''}`,
        );
        if (r.displaced) ctx.out(`previous data moved to ${r.displaced}`);
        if (r.rewritten_worktrees > 0)
          ctx.out(
            `${r.rewritten_worktrees} worktree path${r.rewritten_worktrees === 1 ? '' : 's'} moved under ${ctx.paths.worktreesDir}: a restore never works in another installation's directories`,
          );
        if (r.missing_worktrees > 0)
          ctx.out(
            `${r.missing_worktrees} task worktree${r.missing_worktrees === 1 ? ' is' : 's are'} not here (archives hold no worktrees): each is cut again from its branch when its task next runs, or the task blocks worktree_missing while another checkout holds that branch`,
          );
        ctx.out('start the daemon with `svc daemon start`');
      }
      return EXIT.ok;
    } catch (err) {
      if (err instanceof DaemonLockedError) {
        ctx.err(`svc restore: ${err.message}; stop it first (svc daemon stop)`);
        return EXIT.conflict;
      }
      if (err instanceof RestoreError) {
        ctx.err(`svc restore: ${err.message}`);
        return EXIT.invalid;
      }
      throw err;
    }
  },
};

function renderMaintenance(r: MaintenanceBody, verb: string): string[] {
  const out: string[] = [];
  for (const o of r.orphans) {
    const what = o.removed
      ? 'removed'
      : o.skip_reason
        ? `left: ${o.skip_reason}`
        : o.error
          ? `failed: ${o.error}`
          : r.dry_run
            ? 'would be removed'
            : 'kept';
    out.push(`${o.kind} ${o.path} (${formatBytes(o.bytes)}) ${what}`);
  }
  for (const m of r.mismatches)
    out.push(`task ${m.task_id} (${m.state}) names a missing worktree ${m.path}`);
  out.push(
    r.orphans.length === 0
      ? 'no orphans'
      : `${r.orphans.length} orphan${r.orphans.length === 1 ? '' : 's'}, ${formatBytes(r.bytes)}; ${verb} ${r.reclaimed} (${formatBytes(r.reclaimed_bytes)})`,
  );
  return out;
}

export const orphans: Command = {
  name: 'orphans',
  summary: 'List worktrees and transcript folders no task claims (GET /v1/maintenance/orphans)',
  options: JSON_OPTION,
  async run(ctx) {
    const r = await ctx.client().get<MaintenanceBody>('/v1/maintenance/orphans');
    if (ctx.options.json) ctx.out(JSON.stringify(r, null, 2));
    else for (const l of renderMaintenance(r, 'removed')) ctx.out(l);
    return EXIT.ok;
  },
};

export const gc: Command = {
  name: 'gc',
  summary:
    'Remove orphaned worktrees and transcript folders (never a branch or a row); dirty ones only with --force',
  usage: 'svc gc [--dry-run] [--force]',
  options: {
    'dry-run': { type: 'boolean', description: 'report what would go; remove nothing' },
    force: { type: 'boolean', description: 'also remove dirty or unjudgeable worktrees' },
    ...JSON_OPTION,
  },
  async run(ctx) {
    const r = await ctx.client().post<MaintenanceBody>('/v1/maintenance/gc', {
      dry_run: Boolean(ctx.options['dry-run']),
      force: Boolean(ctx.options.force),
    });
    if (ctx.options.json) ctx.out(JSON.stringify(r, null, 2));
    else
      for (const l of renderMaintenance(r, r.dry_run ? 'would reclaim' : 'reclaimed')) ctx.out(l);
    return EXIT.ok;
  },
};

export const updateCheck: Command = {
  name: 'update check',
  summary: 'Show the daemon’s cached release check (GET /v1/update); it never polls on demand',
  options: JSON_OPTION,
  async run(ctx) {
    const u = await ctx.client().get<UpdateView>('/v1/update');
    if (ctx.options.json) ctx.out(JSON.stringify(u, null, 2));
    else {
      if (!u.enabled) ctx.out('release check off (update.check false or update.poll_interval 0)');
      if (u.checked_at === null) ctx.out(`svc ${u.current_version}; no successful check yet`);
      else if (u.update_available)
        ctx.out(
          `svc ${u.latest_version} is available (you run ${u.current_version}): ${u.release_url}`,
        );
      else
        ctx.out(
          `svc ${u.current_version} is current (latest ${u.latest_version || 'none'}, checked ${u.checked_at})`,
        );
      if (u.error) ctx.out(`last check failed: ${u.error}`);
    }
    return EXIT.ok;
  },
};

export const maintenanceCommands = [backup, restore, orphans, gc, updateCheck];
