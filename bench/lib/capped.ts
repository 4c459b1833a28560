/**
 * One capped run for the throughput and admission sections: a fresh in-process daemon under
 * `max_parallel_tasks: cap`, one project, the admissions tracked from the event log, every task
 * the caller creates waited on until it settles.
 */
import { type Admissions, trackAdmissions } from './admissions.js';
import { makeRepo, prepare, QUIET_CONFIG, startInProcess } from './env.js';
import { now } from './stats.js';
import { TaskWatcher } from './watch.js';

export interface CappedRun {
  admissions: Admissions;
  /** Tasks that settled other than done. */
  failed: number;
  /** First create → last task settled. */
  seconds: number;
}

/** Creates one task of `workflow`, answering its id. */
export type Post = (title: string, workflow: string) => Promise<number>;

export async function cappedRun(opts: {
  root: string;
  cap: number;
  workflows: Record<string, string>;
  fills: 'count' | 'skip';
  create: (post: Post) => Promise<number[]>;
}): Promise<CappedRun> {
  const repo = makeRepo(opts.root);
  const paths = prepare(
    opts.root,
    `${QUIET_CONFIG}max_parallel_tasks: ${opts.cap}\n`,
    opts.workflows,
  );
  const { daemon, api } = await startInProcess(paths);
  const { events } = daemon.kernel.services;
  const watch = new TaskWatcher(events);
  const project = await api.call<{ id: number }>('POST', '/v1/projects', { path: repo });
  const admissions = trackAdmissions(events, opts.cap, opts.fills);
  const post: Post = async (title, workflow) =>
    (
      await api.call<{ id: number }>('POST', '/v1/tasks', {
        project_id: project.id,
        title,
        workflow,
      })
    ).id;
  let failed = 0;
  let seconds = 0;
  try {
    const t0 = now();
    const ids = await opts.create(post);
    for (const id of ids) if ((await watch.settle(id)).payload.to !== 'done') failed++;
    seconds = (now() - t0) / 1000;
  } finally {
    admissions.stop();
    watch.close();
    await daemon.stop();
  }
  return { admissions, failed, seconds };
}
