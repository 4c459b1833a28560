/**
 * The daemon's spawner (decision 247) is svc's own process: its CPU and memory count with the
 * daemon's. Found among the daemon's children by the name it gives itself.
 */
import { readFileSync } from 'node:fs';

export interface ProcFigures {
  /** Microseconds (the kernel counts in 10 ms ticks). */
  user: number;
  system: number;
  rss: number;
}

/** The spawner's CPU and RSS, or zeros while the daemon has none. */
export function spawnerFigures(daemonPid: number): ProcFigures {
  const sum = { user: 0, system: 0, rss: 0 };
  let kids: string[] = [];
  try {
    kids = readFileSync(`/proc/${daemonPid}/task/${daemonPid}/children`, 'utf8').split(' ');
  } catch {
    return sum;
  }
  for (const raw of kids) {
    const kid = raw.trim();
    if (!kid) continue;
    try {
      const stat = readFileSync(`/proc/${kid}/stat`, 'utf8');
      if (!stat.includes('(svc-spawner)')) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sum.user += Number(f[11]) * 10_000;
      sum.system += Number(f[12]) * 10_000;
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${kid}/status`, 'utf8'));
      if (m) sum.rss += Number(m[1]) * 1024;
    } catch {}
  }
  return sum;
}
