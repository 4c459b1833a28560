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
  'pause',
  'resume',
  'cancel',
  'archive',
  'follow_up',
  'chat',
] as const;

/** Operation ids a key can be bound to (`tui.keys.<op>`): the task operations, then the board's own. */
export const TUI_OPERATIONS = [
  ...TASK_OPERATIONS,
  'new_task',
  'open',
  'back',
  'refresh',
  'filter',
  'help',
  'quit',
] as const;

export type TuiOperation = (typeof TUI_OPERATIONS)[number];

export const DEFAULT_TUI_KEYS: Readonly<Record<TuiOperation, string>> = {
  approve: 'a',
  reject: 'x',
  answer: 'i',
  retry: 'r',
  repair: 'R',
  skip: 's',
  pause: 'p',
  resume: 'u',
  cancel: 'c',
  archive: 'A',
  follow_up: 'f',
  chat: 't',
  new_task: 'n',
  open: 'enter',
  back: 'escape',
  refresh: 'ctrl+r',
  filter: '/',
  help: '?',
  quit: 'q',
};

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

/** Operations sharing one key in the effective map (a rebind onto another operation's default). */
export function keyClashes(
  overrides: Partial<Record<TuiOperation, string>>,
): Array<{ key: string; operations: TuiOperation[] }> {
  const byKey = new Map<string, TuiOperation[]>();
  for (const [op, key] of Object.entries(effectiveKeys(overrides)) as Array<[TuiOperation, string]>)
    byKey.set(key, [...(byKey.get(key) ?? []), op]);
  return [...byKey]
    .filter(([, ops]) => ops.length > 1)
    .map(([key, operations]) => ({ key, operations }));
}
