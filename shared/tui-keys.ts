/**
 * The terminal board's key grammar and default bindings (SPEC §2.10 `tui.keys`). The daemon's
 * config schema refuses an invalid rebind with it like any invalid value, and the board reads the
 * same table to build its key map and hints, so the two can never disagree (decision 142). It sits
 * outside kernel/ and cli/ because both use it and the board imports nothing from the kernel
 * (SPEC §1): keep it free of imports.
 */

/** Operations on the selected task: each is a task route (or, for `chat`, opens one). */
export const TASK_OPERATIONS = [
  'approve',
  'reject',
  'answer',
  'retry',
  'repair',
  'skip',
  'merge_finished',
  'pause',
  'resume',
  'cancel',
  'archive',
  'follow_up',
  'chat',
] as const;

/**
 * Operations of the diff view only (decision 174). Their keys are looked up only there, so they
 * may repeat a board key (`n` is the next file in the diff view, a new task on the board).
 */
export const DIFF_VIEW_OPERATIONS = ['next_file', 'prev_file', 'comment', 'send_review'] as const;

/** Board operations the diff view takes too: the gate's own actions, leaving, help. */
export const DIFF_VIEW_SHARED = ['approve', 'reject', 'back', 'refresh', 'help', 'quit'] as const;

/** Operation ids a key can be bound to (`tui.keys.<op>`): the task operations, then the board's own. */
export const TUI_OPERATIONS = [
  ...TASK_OPERATIONS,
  'new_task',
  'open',
  'diff',
  'back',
  'refresh',
  'help',
  'quit',
  ...DIFF_VIEW_OPERATIONS,
] as const;

export type TuiOperation = (typeof TUI_OPERATIONS)[number];

export const DEFAULT_TUI_KEYS: Readonly<Record<TuiOperation, string>> = {
  approve: 'a',
  reject: 'x',
  answer: 'i',
  retry: 'r',
  repair: 'R',
  skip: 's',
  merge_finished: 'M',
  pause: 'p',
  resume: 'u',
  cancel: 'c',
  archive: 'A',
  follow_up: 'f',
  chat: 't',
  new_task: 'n',
  open: 'enter',
  diff: 'd',
  back: 'escape',
  refresh: 'ctrl+r',
  help: '?',
  quit: 'q',
  next_file: 'n',
  prev_file: 'p',
  comment: 'c',
  send_review: 'S',
};

/**
 * Where a diff-view operation goes when its default key is one a configuration binds the gate's
 * actions to (`reject: n` was a valid rebind before the diff view existed, and must stay one).
 */
export const DIFF_VIEW_ALTERNATES: Readonly<Record<(typeof DIFF_VIEW_OPERATIONS)[number], string>> =
  {
    next_file: ']',
    prev_file: '[',
    comment: 'm',
    send_review: 'ctrl+s',
  };

/** Where a key is looked up: the board and detail pane, or the diff view. */
export type KeyScope = 'board' | 'diff';

/** The operations a key is looked up among in `scope`. */
export function operationsIn(scope: KeyScope): readonly TuiOperation[] {
  const diffOnly = DIFF_VIEW_OPERATIONS as readonly TuiOperation[];
  if (scope === 'diff') return [...diffOnly, ...DIFF_VIEW_SHARED];
  return TUI_OPERATIONS.filter((op) => !diffOnly.includes(op));
}

/** Named keys a binding may use besides one printable character. */
const NAMED_KEYS = [
  'enter',
  'escape',
  'tab',
  'space',
  'backspace',
  'delete',
  'left',
  'right',
] as const;

/**
 * Keys the board keeps for moving the selection (and ctrl+c, which always quits): binding an
 * operation to one would make the list unreachable.
 */
export const RESERVED_KEYS = [
  'up',
  'down',
  'pageup',
  'pagedown',
  'home',
  'end',
  'j',
  'k',
  'ctrl+c',
] as const;

/**
 * Why `key` cannot be a binding, or null when it can. Grammar: one printable character other than
 * a space (`a`, `A`, `?`), a named key (`enter`, `escape`, `tab`, `space`, `backspace`, `delete`,
 * `left`, `right`), or `ctrl+<letter>`.
 */
export function keyProblem(key: string): string | null {
  if ((RESERVED_KEYS as readonly string[]).includes(key))
    return `${JSON.stringify(key)} is reserved for moving the selection`;
  if ([...key].length === 1) {
    return /^[\p{L}\p{N}\p{P}\p{S}]$/u.test(key)
      ? null
      : `${JSON.stringify(key)} is not a printable character`;
  }
  if ((NAMED_KEYS as readonly string[]).includes(key)) return null;
  if (/^ctrl\+[a-z]$/.test(key)) return null;
  return `${JSON.stringify(key)} is not a key: use one character, ctrl+<letter>, or one of ${NAMED_KEYS.join(', ')}`;
}

/** The bindings in force: the defaults with `overrides` on top. */
export function effectiveKeys(
  overrides: Partial<Record<TuiOperation, string>>,
): Record<TuiOperation, string> {
  return { ...DEFAULT_TUI_KEYS, ...overrides };
}

/**
 * The bindings in force with each diff-view operation left at its default moved off a key the
 * diff view's shared operations use (to its alternate, else unbound: null). An operation the
 * configuration binds itself is never moved: a clash of it is refused (keyClashes).
 */
export function resolvedKeys(
  overrides: Partial<Record<TuiOperation, string>>,
): Record<TuiOperation, string | null> {
  const keys: Record<TuiOperation, string | null> = effectiveKeys(overrides);
  const taken = new Set<string | null>(DIFF_VIEW_SHARED.map((op) => keys[op]));
  for (const op of DIFF_VIEW_OPERATIONS) if (overrides[op] !== undefined) taken.add(keys[op]);
  for (const op of DIFF_VIEW_OPERATIONS) {
    if (overrides[op] !== undefined || !taken.has(keys[op])) continue;
    const alternate = DIFF_VIEW_ALTERNATES[op];
    const free =
      !taken.has(alternate) &&
      !DIFF_VIEW_OPERATIONS.some((other) => other !== op && keys[other] === alternate);
    keys[op] = free ? alternate : null;
    if (free) taken.add(alternate);
  }
  return keys;
}

/**
 * Operations sharing one key where it is looked up (a rebind onto another operation's default),
 * the board and the diff view each on their own.
 */
export function keyClashes(
  overrides: Partial<Record<TuiOperation, string>>,
): Array<{ key: string; operations: TuiOperation[] }> {
  const keys = resolvedKeys(overrides);
  const seen = new Set<string>();
  const out: Array<{ key: string; operations: TuiOperation[] }> = [];
  for (const scope of ['board', 'diff'] as const) {
    const byKey = new Map<string, TuiOperation[]>();
    for (const op of operationsIn(scope)) {
      const key = keys[op];
      if (key !== null) byKey.set(key, [...(byKey.get(key) ?? []), op]);
    }
    for (const [key, operations] of byKey) {
      const id = `${key}\0${operations.join(',')}`;
      if (operations.length > 1 && !seen.has(id)) {
        seen.add(id);
        out.push({ key, operations });
      }
    }
  }
  return out;
}
