// The judgement as a pure function (decision 082): each stage in order, and how event values
// reach templates (decision 088). The runtime and both dry runs call this same code.
import { describe, expect, it } from 'vitest';
import type { TriggerDefinition } from '../../../kernel/triggers/definition.js';
import { type JudgeContext, judge, matchMiss } from '../../../kernel/triggers/judge.js';

function def(over: Partial<TriggerDefinition> = {}): TriggerDefinition {
  return {
    id: 't',
    enabled: true,
    project_id: 1,
    source: { type: 'command', command: ['x'] },
    action: { type: 'create_task', title: '{{.Event.title}}' },
    ...over,
  } as TriggerDefinition;
}

function ctx(over: Partial<JudgeContext> = {}): JudgeContext {
  return {
    triggerId: 't',
    project: { id: 1, name: 'p', path: '/p', default_branch: 'main' },
    now: 0,
    seeding: false,
    holdsKey: () => false,
    firedLastHour: () => 0,
    inFlight: () => [],
    task: (id) => (id === 5 ? { id: 5, branch_name: 'svc/5-x', state: 'done' } : undefined),
    taskOnBranch: (b) => (b === 'svc/5-x' ? { id: 5, branch_name: b, state: 'done' } : undefined),
    ...over,
  };
}

describe('match', () => {
  it('reads dotted keys, compares scalars as text, and matches lists by any item', () => {
    const d = def({ match: { 'pull.draft': false, n: [1, 2], labels: 'bug' } });
    expect(matchMiss(d, { pull: { draft: false }, n: 2, labels: ['x', 'bug'] })).toBeNull();
    expect(matchMiss(d, { pull: { draft: 'false' }, n: '1', labels: 'bug' })).toBeNull();
    expect(matchMiss(d, { pull: { draft: true }, n: 1, labels: 'bug' })).toBe('pull.draft');
    expect(matchMiss(d, { pull: { draft: false }, n: 3, labels: 'bug' })).toBe('n');
    expect(matchMiss(d, { pull: { draft: false }, n: 1 })).toBe('labels');
    expect(matchMiss(d, { pull: { draft: false }, n: 1, labels: [{ name: 'bug' }] })).toBe(
      'labels',
    );
  });
});

describe('judge', () => {
  it('renders missing event keys empty and falls back to the event id for an empty dedupe key', () => {
    const j = judge(def({ dedupe_key: '{{.Event.nothing}}' }), { id: 'e1' }, ctx());
    expect(j).toMatchObject({
      dedupe_key: 'e1',
      outcome: 'fired',
      action: { body: { title: '' } },
    });
  });

  it('seeds only what passes the filters and is not already held', () => {
    const seeding = ctx({ seeding: true, holdsKey: (k) => k === 'old' });
    expect(judge(def(), { id: 'new' }, seeding).outcome).toBe('seeded');
    expect(judge(def(), { id: 'old' }, seeding).outcome).toBe('deduped');
    expect(judge(def({ match: { k: 'v' } }), { id: 'x' }, seeding).outcome).toBe('filtered');
  });

  it('checks the rate limit before rendering the action', () => {
    const j = judge(
      def({
        limits: { max_per_hour: 3 },
        action: { type: 'create_task', title: '{{fail "x"}}' } as never,
      }),
      { id: 'e' },
      ctx({ firedLastHour: () => 3 }),
    );
    expect(j.outcome).toBe('rate_limited');
    expect(j).not.toHaveProperty('action');
  });

  it('refuses event strings in a command line but prints numbers there', () => {
    const run = def({
      action: { type: 'follow_up', task: '5', run: 'make issue-{{.Event.n}}' } as never,
    });
    expect(judge(run, { id: 'e', n: 12 }, ctx()).action?.body).toEqual({ run: 'make issue-12' });
    const bad = def({
      action: {
        type: 'retry',
        task: '5',
        run_override: 'echo {{printf "%s!" .Event.title}}',
      } as never,
    });
    const j = judge(bad, { id: 'e', title: '$(reboot)' }, ctx());
    expect(j.outcome).toBe('error');
    expect(j.error).toContain('cannot be printed into a command line');
    // Comparing an event value inside the template is fine; only printing it is refused.
    const cmp = def({
      action: {
        type: 'follow_up',
        task: '5',
        run: '{{if eq .Event.kind "x"}}make x{{end}}',
      } as never,
    });
    expect(judge(cmp, { id: 'e', kind: 'x' }, ctx()).action?.body).toEqual({ run: 'make x' });
  });

  it('keeps event text literal in a follow-up prompt the engine renders again', () => {
    const d = def({
      action: { type: 'follow_up', task: '5', prompt: 'Fix: {{.Event.title}}' } as never,
    });
    const body = judge(d, { id: 'e', title: '{{.Task.Title}} "q"\n' }, ctx()).action?.body;
    expect(body).toEqual({ prompt: 'Fix: {{"{{.Task.Title}} \\"q\\"\\n"}}' });
  });

  it('targets a task by id or by branch and carries both', () => {
    const byId = judge(
      def({ on_fire: 'create', action: { type: 'cancel', task: '{{.Event.t}}' } as never }),
      { id: 'e', t: 5 },
      ctx(),
    );
    expect(byId.action).toEqual({
      type: 'cancel',
      method: 'POST',
      path: '/v1/tasks/5/cancel',
      body: null,
      task_id: 5,
      branch: 'svc/5-x',
    });
    const unknown = judge(
      def({ on_fire: 'create', action: { type: 'cancel', task: '{{.Event.t}}' } as never }),
      { id: 'e', t: 'abc' },
      ctx(),
    );
    expect(unknown.action?.path).toBe('/v1/tasks/abc/cancel');
    expect(unknown.action).not.toHaveProperty('task_id');
  });

  it('sends paused and restricted unless the file says create and workflow', () => {
    expect(judge(def(), { id: 'e', title: 't' }, ctx()).action?.body).toEqual({
      project_id: 1,
      title: 't',
      paused: true,
      restricted: true,
    });
    const open = def({
      on_fire: 'create',
      action: {
        type: 'create_task',
        title: 't',
        permission: 'workflow',
        forge_pull: '{{.Event.n}}',
      } as never,
    });
    expect(judge(open, { id: 'e', n: 7 }, ctx()).action?.body).toEqual({
      project_id: 1,
      title: 't',
      forge_pull: 7,
    });
  });

  it('an overrun without a concurrency_key groups the whole trigger', () => {
    const j = judge(
      def({ overrun: 'skip' }),
      { id: 'e' },
      ctx({ inFlight: (k) => (k === '' ? [9] : []) }),
    );
    expect(j).toMatchObject({
      overrun: 'skip',
      concurrency_key: '',
      in_flight: [9],
      would_skip: true,
      outcome: 'skipped',
    });
  });
});
