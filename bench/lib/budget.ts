/**
 * A daemon's CPU profile (V8 `.cpuprofile`) cut into the parts of issue 22's per-task budget:
 * each sample is charged to the nearest frame, walking from the running function up its callers,
 * that belongs to a part — so `JSON.parse` called by the store is SQLite's, a socket write called
 * by fastify is HTTP's. Samples are wall-clock ticks of the main thread while it was busy; idle
 * ticks are left out.
 */

interface Frame {
  functionName: string;
  url: string;
}

interface ProfileNode {
  id: number;
  callFrame: Frame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export const PARTS = [
  'HTTP',
  'validation',
  'SQLite',
  'events',
  'transcript',
  'spawn',
  'git files',
  'workflows',
  'engine',
  'GC',
  'other',
] as const;

export type Part = (typeof PARTS)[number];

const RULES: Array<[Part | 'idle', RegExp]> = [
  ['SQLite', /better-sqlite3|\/kernel\/store\//],
  ['spawn', /child_process|\/kernel\/proc\/(spawn|env)\.|\/kernel\/git\/run\./],
  ['transcript', /\/kernel\/proc\/(transcript|output-lines)\.|\/kernel\/engine\/spawn\./],
  ['events', /\/kernel\/events\/|\/kernel\/http\/sse\./],
  [
    'validation',
    /node_modules\/zod\/|\/kernel\/engine\/schema\.|\/kernel\/http\/(validate|body)\./,
  ],
  [
    'HTTP',
    /node_modules\/(fastify|find-my-way|avvio|light-my-request|@fastify|fast-querystring|secure-json-parse|pino|@pinojs|sonic-boom|thread-stream)\/|node:_http|node:http|\/kernel\/http\/|\/kernel\/log\//,
  ],
  ['git files', /\/kernel\/git\//],
  ['workflows', /\/kernel\/workflows\//],
  ['engine', /\/kernel\/(engine|scheduler|projects)\//],
];

/** better-sqlite3's native statement methods carry no URL; their caller may be anyone's. */
const SQLITE_NATIVE = new Set(['run', 'get', 'all', 'iterate', 'exec', 'prepare', 'pragma']);

/** Milliseconds per part over the whole profile (idle left out). */
export function budget(profile: CpuProfile): Record<Part, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, Part | 'idle'>();
  const classify = (leaf: number): Part | 'idle' => {
    const hit = memo.get(leaf);
    if (hit) return hit;
    const first = byId.get(leaf)?.callFrame;
    let part: Part | 'idle' | null = null;
    if (first?.functionName === '(idle)' || first?.functionName === '(program)') part = 'idle';
    else if (first?.functionName === '(garbage collector)') part = 'GC';
    else if (first?.url === '' && SQLITE_NATIVE.has(first.functionName)) part = 'SQLite';
    for (
      let id: number | undefined = leaf;
      part === null && id !== undefined;
      id = parent.get(id)
    ) {
      const url = byId.get(id)?.callFrame.url ?? '';
      for (const [name, re] of RULES)
        if (re.test(url)) {
          part = name;
          break;
        }
      if (part === null && /\/kernel\/|\/plugins\//.test(url)) part = 'other';
    }
    const out = part ?? 'other';
    memo.set(leaf, out);
    return out;
  };
  const totals = Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<Part, number>;
  for (let i = 0; i < profile.samples.length; i++) {
    const part = classify(profile.samples[i] as number);
    if (part !== 'idle') totals[part] += (profile.timeDeltas[i] ?? 0) / 1000;
  }
  return totals;
}
