/**
 * Keys: a keystroke as Ink reports it becomes one token in the grammar `tui.keys` uses
 * (shared/tui-keys.ts), and the bindings in force map tokens to operations. The daemon has
 * already refused invalid rebinds; a client facing an older daemon still ignores any it cannot use.
 */
import {
  type KeyScope,
  keyClashes,
  keyProblem,
  operationsIn,
  resolvedKeys,
  TUI_OPERATIONS,
  type TuiOperation,
} from '../../shared/tui-keys.js';

/** What Ink's `useInput` hands over, narrowed to what the grammar distinguishes. */
export interface Keystroke {
  input: string;
  key: {
    upArrow?: boolean;
    downArrow?: boolean;
    leftArrow?: boolean;
    rightArrow?: boolean;
    pageUp?: boolean;
    pageDown?: boolean;
    home?: boolean;
    end?: boolean;
    return?: boolean;
    escape?: boolean;
    ctrl?: boolean;
    tab?: boolean;
    shift?: boolean;
    backspace?: boolean;
    delete?: boolean;
    meta?: boolean;
  };
}

/** The token for a keystroke (`a`, `A`, `enter`, `ctrl+r`, `up`), or null for one we do not bind. */
export function tokenOf({ input, key }: Keystroke): string | null {
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
  if (key.leftArrow) return 'left';
  if (key.rightArrow) return 'right';
  if (key.pageUp) return 'pageup';
  if (key.pageDown) return 'pagedown';
  if (key.home) return 'home';
  if (key.end) return 'end';
  if (key.return) return 'enter';
  if (key.escape) return 'escape';
  if (key.tab) return 'tab';
  if (key.backspace) return 'backspace';
  if (key.delete) return 'delete';
  if (key.ctrl && /^[a-z]$/i.test(input)) return `ctrl+${input.toLowerCase()}`;
  if (key.meta) return null;
  if (input === ' ') return 'space';
  return [...input].length === 1 ? input : null;
}

export interface Keymap {
  /** Operation for a token, on the board (default) or in the diff view (decision 174). */
  opFor(token: string, scope?: KeyScope): TuiOperation | undefined;
  /** The key bound to an operation, as typed in config ('' when a diff-view operation has none). */
  keyOf(op: TuiOperation): string;
  /** The key as a hint shows it (`enter` → `⏎`, `ctrl+r` → `^R`). */
  label(op: TuiOperation): string;
}

export function buildKeymap(overrides: Record<string, string>): Keymap {
  const usable: Partial<Record<TuiOperation, string>> = {};
  for (const [op, key] of Object.entries(overrides))
    if ((TUI_OPERATIONS as readonly string[]).includes(op) && keyProblem(key) === null)
      usable[op as TuiOperation] = key;
  // An older daemon may relay a clashing map; drop the rebinds that clash rather than guess.
  for (const c of keyClashes(usable)) for (const op of c.operations) delete usable[op];
  const bound = resolvedKeys(usable);
  const scopes = new Map<KeyScope, Map<string, TuiOperation>>();
  for (const scope of ['board', 'diff'] as const) {
    const byKey = new Map<string, TuiOperation>();
    for (const op of operationsIn(scope)) {
      const key = bound[op];
      if (key !== null) byKey.set(key, op);
    }
    scopes.set(scope, byKey);
  }
  return {
    opFor: (token, scope = 'board') => scopes.get(scope)?.get(token),
    keyOf: (op) => bound[op] ?? '',
    label: (op) => {
      const key = bound[op];
      return key === null ? 'unbound' : keyLabel(key);
    },
  };
}

export function keyLabel(key: string): string {
  if (key === 'enter') return '⏎';
  if (key === 'escape') return 'esc';
  if (key.startsWith('ctrl+')) return `^${key.slice(5).toUpperCase()}`;
  return key;
}

/** Selection movement: fixed keys, never rebindable (RESERVED_KEYS). */
export function moveFor(token: string, page: number): number | 'first' | 'last' | null {
  switch (token) {
    case 'up':
    case 'k':
      return -1;
    case 'down':
    case 'j':
      return 1;
    case 'pageup':
      return -page;
    case 'pagedown':
      return page;
    case 'home':
      return 'first';
    case 'end':
      return 'last';
    default:
      return null;
  }
}
