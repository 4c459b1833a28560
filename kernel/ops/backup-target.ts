/**
 * Where a backup may not be written (decision 189): pseudo file systems, whose "files" are the
 * kernel's own views (`/proc`, `/sys`, `/dev`, cgroups, …). Writing an archive there fails in
 * ways that said nothing of the path (a 500); it is a bad path, refused as one.
 */
import { statfsSync } from 'node:fs';

const PSEUDO_ROOTS = ['/proc', '/sys', '/dev'];

/** statfs f_type magic numbers (linux/magic.h) of file systems that hold no ordinary files. */
const PSEUDO_MAGIC = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0xcafe4a11, 'bpf'],
  [0x6165676c, 'pstore'],
  [0x62656570, 'configfs'],
  [0x65735543, 'fusectl'],
  [0xde5e81e4, 'efivarfs'],
  [0x19800202, 'mqueue'],
  [0x6e736673, 'nsfs'],
  [0x42494e4d, 'binfmt_misc'],
  [0xf97cff8c, 'selinuxfs'],
  [0x0187, 'autofs'],
]);

const under = (path: string, root: string) => path === root || path.startsWith(`${root}/`);

/**
 * Why a backup cannot go to `path` (absolute and resolved) in directory `parent` (which exists),
 * or null.
 */
export function pseudoTargetProblem(path: string, parent: string): string | null {
  const root = PSEUDO_ROOTS.find((r) => under(path, r));
  if (root) return `is under ${root}, a pseudo file system`;
  if (process.platform !== 'linux') return null;
  let type: number;
  try {
    type = statfsSync(parent).type;
  } catch {
    return null;
  }
  const name = PSEUDO_MAGIC.get(type);
  return name ? `is on a ${name} file system, which holds no ordinary files` : null;
}
