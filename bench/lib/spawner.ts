/**
 * The daemon's spawner (decision 247) is svc's own process: its CPU and memory count with the
 * daemon's. Found among the daemon's children by the name it gives itself. Of its memory, what
 * counts beside the daemon's RSS is its private pages (decision 256): the rest of its RSS is
 * mostly the Node binary's pages, which the daemon maps too and the machine holds once.
 */
import { readFileSync } from 'node:fs';

export interface ProcFigures {
  /** Microseconds (the kernel counts in 10 ms ticks). */
  user: number;
  system: number;
  rss: number;
  /** Pages only this process maps (`Private_Clean + Private_Dirty` in smaps_rollup), bytes. */
  private: number;
}

/** The spawner's CPU and RSS, or zeros while the daemon has none. */
export function spawnerFigures(daemonPid: number): ProcFigures {
  const sum = { user: 0, system: 0, rss: 0, private: 0 };
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
      sum.private += privateBytes(kid);
    } catch {}
  }
  return sum;
}

/** A process's private pages, bytes (0 when the kernel does not say). */
export function privateBytes(pid: number | string): number {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  } catch {
    return 0;
  }
  let kb = 0;
  for (const m of text.matchAll(/^Private_(?:Clean|Dirty):\s+(\d+) kB/gm)) kb += Number(m[1]);
  return kb * 1024;
}
