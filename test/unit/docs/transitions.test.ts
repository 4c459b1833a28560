// Issue 21 point 1: the transition table docs/tasks.md shows is derived from the one the engine
// goes through — every event, every (state → state) pair, nothing more, nothing less.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  statesFrom,
  type TaskEvent,
  TRANSITIONS,
  transitionTarget,
} from '../../../kernel/engine/transitions.js';

const TASKS_MD = fileURLToPath(new URL('../../../docs/tasks.md', import.meta.url));

/** The "Every transition" table: event → `state → target` pairs, as written. */
function documented(): Map<string, Map<string, string>> {
  const text = readFileSync(TASKS_MD, 'utf8');
  const section = text.split('### Every transition')[1]?.split('\n## ')[0] ?? '';
  const rows = new Map<string, Map<string, string>>();
  for (const m of section.matchAll(/^\| `([a-z_]+)` \| ([^|]+) \|/gm)) {
    const pairs = new Map<string, string>();
    for (const part of (m[2] as string).split(';')) {
      const [from, to] = part.split('→').map((x) => x.trim()) as [string, string];
      for (const state of from.split(',').map((x) => x.trim())) pairs.set(state, to);
    }
    rows.set(m[1] as string, pairs);
  }
  return rows;
}

describe('docs/tasks.md, every transition', () => {
  it('names every event of the table, and only those', () => {
    expect([...documented().keys()].sort()).toEqual(Object.keys(TRANSITIONS).sort());
  });

  it('shows each event from exactly the states the table declares, to where it leads', () => {
    const docs = documented();
    for (const event of Object.keys(TRANSITIONS) as TaskEvent[]) {
      const want = Object.fromEntries(
        statesFrom(event).map((s) => [s, transitionTarget(s, event)]),
      );
      expect(Object.fromEntries(docs.get(event) ?? []), event).toEqual(want);
    }
  });
});
