/**
 * `svc doctor`: the doctor report for humans (SPEC §2.9). It asks the daemon; when the daemon does
 * not answer it builds the same report from the files itself (decision 060) — the one place the
 * command line reads svc's files directly, because a diagnosis must work exactly when the API
 * does not. The exit status is 7 (problems) whenever `problems[]` is non-empty.
 */

import type { DoctorReport, FixAction } from '../../kernel/ops/index.js';
import { offlineDoctor } from '../../kernel/ops/index.js';
import { DaemonUnreachableError } from '../client.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { formatBytes } from '../format.js';

function agentLine(a: DoctorReport['agents'][number]): string {
  if (!a.available) return `${a.name}: not installed`;
  const login =
    a.logged_in === true ? 'logged in' : a.logged_in === false ? 'logged out' : 'login unknown';
  const verdict = a.version_verdict ? ` (${a.version_verdict})` : '';
  return `${a.name}: ${a.version || 'version unknown'}${verdict}, ${login}, ${a.path}`;
}

/** The report as a few lines per group; every problem last, with its code. */
export function renderDoctor(r: DoctorReport): string[] {
  const out: string[] = [`svc doctor — ${r.generated_at}`, ''];
  const row = (label: string, text: string) => out.push(`${label.padEnd(10)} ${text}`);
  const more = (text: string) => out.push(`${''.padEnd(10)} ${text}`);

  row(
    'config',
    `${r.paths.config_file} ${r.paths.config_file_exists ? (r.paths.config_parses ? 'ok' : `does not parse: ${r.paths.config_error ?? ''}`) : '(absent: defaults)'}`,
  );
  more(`data ${r.paths.data_dir}`);
  for (const p of r.paths.config_permissions)
    more(`warning: ${p.path} is ${p.mode}, expected ${p.expected_mode} (${p.remediation})`);

  const d = r.daemon;
  row(
    'daemon',
    d.status === 'running'
      ? `running, pid ${d.pid}, port ${d.port ?? '?'}, up ${d.uptime_seconds}s, svc ${d.version}`
      : `${d.status}${d.pid ? `, pid ${d.pid}` : ''}${d.detail ? ` — ${d.detail}` : ''}`,
  );

  row(
    'log',
    r.log.exists
      ? `${r.log.path} (${formatBytes(r.log.size_bytes)}, modified ${r.log.mod_time})`
      : `${r.log.path} (absent)`,
  );
  if (d.status !== 'running') for (const l of r.log.tail.slice(-5)) more(`| ${l}`);

  const db = r.database;
  row(
    'database',
    `${db.path} ${db.known ? '' : '(unreadable) '}schema ${db.schema_version ?? '?'}/${db.newest_migration}, integrity ${db.integrity_check}`,
  );
  more(
    `${formatBytes(db.total_bytes)} (file ${formatBytes(db.size_bytes)}, wal ${formatBytes(db.wal_bytes)}, shm ${formatBytes(db.shm_bytes)}), snapshots ${formatBytes(db.workflow_snapshot_bytes)}`,
  );
  const rows = Object.entries(db.table_rows);
  if (rows.length > 0) more(`rows: ${rows.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  if (db.oldest_event_at) more(`oldest event ${db.oldest_event_at}`);

  if (r.agents.length === 0) row('agents', 'no adapters registered');
  r.agents.forEach((a, i) => {
    (i === 0 ? (t: string) => row('agents', t) : more)(agentLine(a));
  });

  const s = r.storage;
  row(
    'storage',
    `${s.worktree_count} worktree${s.worktree_count === 1 ? '' : 's'}, ${formatBytes(s.worktree_bytes)} in ${s.worktrees_dir}`,
  );
  if (s.disk_free_bytes !== null && s.disk_total_bytes !== null)
    more(`disk ${formatBytes(s.disk_free_bytes)} free of ${formatBytes(s.disk_total_bytes)}`);
  const full = s.disk_full_mode;
  if (full?.full)
    more(
      `warning: the data disk is full (${full.code ?? 'ENOSPC'} since ${full.since}): queued tasks wait and writes answer disk_full until there is room; free space and admission resumes by itself`,
    );
  else if (full?.ended_full)
    more(
      'the daemon last stopped with its data disk full; the tasks it interrupted were blocked disk_full (retry them)',
    );
  if (!s.orphans_known) more('orphans: unknown (no database to judge claims)');
  for (const o of s.orphans)
    more(
      `orphan ${o.kind} ${o.path} (${formatBytes(o.size_bytes)})${o.skip ? `, gc would leave it: ${o.skip}` : ''}`,
    );

  const t = r.tasks;
  row(
    'tasks',
    t.known
      ? `${t.total} total${
          t.total > 0
            ? `: ${Object.entries(t.counts)
                .filter(([, n]) => n > 0)
                .map(([k, n]) => `${k} ${n}`)
                .join(', ')}`
            : ''
        }`
      : 'unknown',
  );

  const b = r.backup;
  row(
    'backup',
    b.enabled
      ? `every ${b.interval} to ${b.dir}, keep ${b.keep === 0 ? 'all' : b.keep}, ${b.archive_count} archive${b.archive_count === 1 ? '' : 's'}${b.newest_archive ? `, newest ${b.newest_archive.created_at}` : ''}, next ${b.next_due_at}${b.overdue ? ' (overdue)' : ''}`
      : 'scheduled backups off (backup.interval 0)',
  );
  if (b.dir_problem) more(`warning: ${b.dir_problem}`);
  if (b.last_error) more(`last error ${b.last_error_at}: ${b.last_error}`);

  const c = r.container;
  row(
    'container',
    !c.enabled
      ? 'off (no container.image)'
      : `${c.image} via ${c.runtime}: ${c.available ? `${c.runtime_path}${c.version ? ` (${c.version})` : ''}` : `unavailable${c.error ? ` — ${c.error}` : ''}`}`,
  );

  out.push('');
  if (r.problems.length === 0) out.push('No problems.');
  else {
    out.push(`Problems (${r.problems.length}):`);
    for (const p of r.problems) out.push(`  - [${p.code}] ${p.message}`);
  }
  return out;
}

function renderActions(actions: FixAction[]): string[] {
  return actions.map(
    (a) =>
      `${a.action} ${a.target}: ${a.status}${a.freed_bytes !== undefined ? `, freed ${formatBytes(a.freed_bytes)}` : ''}${a.detail ? ` — ${a.detail}` : ''}`,
  );
}

export const doctor: Command = {
  name: 'doctor',
  summary:
    'Diagnose the installation (GET /v1/doctor); works with the daemon down. Exit 7 when problems are found',
  usage: 'svc doctor [--json] [--cached] [--fix [--force]]',
  options: {
    json: { type: 'boolean', description: 'print the report as JSON' },
    cached: {
      type: 'boolean',
      description: 'do not re-probe agent CLIs; use what the daemon last learned (probe=false)',
    },
    fix: {
      type: 'boolean',
      description:
        'remove orphaned worktrees and compact the database (POST /v1/doctor/fix; needs the daemon)',
    },
    force: {
      type: 'boolean',
      description: 'with --fix: also remove dirty or unjudgeable worktrees',
    },
  },
  async run(ctx) {
    const json = Boolean(ctx.options.json);
    let report: DoctorReport;
    let actions: FixAction[] | null = null;
    try {
      const client = ctx.client();
      if (ctx.options.fix) {
        const r = await client.post<{ actions: FixAction[]; report: DoctorReport }>(
          '/v1/doctor/fix',
          { force: Boolean(ctx.options.force) },
        );
        actions = r.actions;
        report = r.report;
      } else {
        report = await client.get<DoctorReport>(
          '/v1/doctor',
          ctx.options.cached ? { probe: false } : {},
        );
      }
    } catch (err) {
      if (!(err instanceof DaemonUnreachableError)) throw err;
      if (ctx.options.fix) ctx.err('svc doctor: --fix needs a running daemon; reporting only');
      report = await offlineDoctor(ctx.paths, {
        probe: !ctx.options.cached,
        unreachable: err.message,
      });
    }
    if (json) ctx.out(JSON.stringify(actions ? { actions, report } : report, null, 2));
    else {
      if (actions) {
        for (const l of renderActions(actions)) ctx.out(l);
        ctx.out('');
      }
      for (const l of renderDoctor(report)) ctx.out(l);
    }
    return report.problems.length > 0 ? EXIT.problems : EXIT.ok;
  },
};

export const doctorCommands = [doctor];
