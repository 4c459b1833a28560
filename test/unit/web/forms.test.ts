// Issue 23 points 4 and 5: the new-task body and where an API field error goes; the review body;
// the file tree; the event-stream parser and the live-output dedupe.
import { describe, expect, it } from 'vitest';
import { createBody, errorTarget, inputKind } from '../../../web/lib/form.js';
import { canSend, fileTree, reviewAction, reviewBody } from '../../../web/lib/review.js';
import { SseParser } from '../../../web/lib/sse.js';
import { liveLines, transcriptLines } from '../../../web/lib/transcript.js';

describe('new-task form', () => {
  it('picks an input per declared type', () => {
    expect(inputKind({ name: 'a', type: 'enum', values: ['x'] })).toBe('select');
    expect(inputKind({ name: 'a', type: 'enum', values: ['x'], multiple: true })).toBe('multi');
    expect(inputKind({ name: 'a', type: 'boolean' })).toBe('boolean');
    expect(inputKind({ name: 'a', type: 'integer' })).toBe('integer');
    expect(inputKind({ name: 'a' })).toBe('text');
  });

  it('leaves blank optional inputs out so the workflow defaults apply', () => {
    const body = createBody(
      {
        project_id: 1,
        workflow: 'w',
        title: 'T',
        description: ' ',
        fields: { ticket: 'SVC-1', size: '' },
        agent: '',
        model: 'm',
        effort: '',
        paused: false,
      },
      [{ name: 'ticket' }, { name: 'size' }],
    );
    expect(body).toEqual({
      project_id: 1,
      workflow: 'w',
      title: 'T',
      fields: { ticket: 'SVC-1' },
      model: 'm',
    });
  });

  it('places an API error next to the input it names', () => {
    const inputs = ['title', 'workflow', 'fields.ticket'];
    expect(errorTarget('fields.ticket', inputs)).toBe('fields.ticket');
    expect(errorTarget('fields.fields.ticket', inputs)).toBe('fields.ticket');
    expect(errorTarget('title', inputs)).toBe('title');
    expect(errorTarget('container.image', inputs)).toBe('');
    expect(errorTarget(undefined, inputs)).toBe('');
  });
});

describe('review', () => {
  it('is a follow-up when done or aborted, reject-and-repair at a gate, nothing otherwise', () => {
    expect(reviewAction('done')?.action).toBe('follow_up');
    expect(reviewAction('aborted')?.action).toBe('follow_up');
    expect(reviewAction('awaiting_gate')?.action).toBe('reject_repair');
    expect(reviewAction('running')).toBeNull();
  });

  it('sends comments in file and line order, without blank ones, with the run', () => {
    const comments = [
      { path: 'b.ts', line: 3, side: 'new' as const, body: 'later' },
      { path: 'a.ts', line: 9, side: 'old' as const, body: 'gone?' },
      { path: 'a.ts', line: 2, side: 'new' as const, body: '  ' },
    ];
    expect(reviewBody(comments, '', 7)).toEqual({
      comments: [comments[1], comments[0]],
      run: 7,
    });
    expect(canSend(comments.slice(2), '')).toBe(false);
    expect(canSend([], 'overall')).toBe(true);
  });

  it('draws the file tree folders first, single-folder chains squashed', () => {
    const tree = fileTree(['src/lib/a.ts', 'src/lib/b.ts', 'README.md', 'docs/x.md']);
    expect(tree.map((n) => n.name)).toEqual(['docs', 'src/lib', 'README.md']);
    expect(tree[1]?.children?.map((n) => n.path)).toEqual(['src/lib/a.ts', 'src/lib/b.ts']);
  });
});

describe('streams and output', () => {
  it('parses frames across chunk boundaries, dropping comments', () => {
    const p = new SseParser();
    expect(p.push(': connected\n\nid: 4\nevent: task.created\nda')).toEqual([]);
    expect(p.push('ta: {"a":1}\n\nevent: command.output\ndata: x\n\n')).toEqual([
      { id: '4', event: 'task.created', data: '{"a":1}' },
      { event: 'command.output', data: 'x' },
    ]);
  });

  it('drops a live chunk the transcript already held, and reads svc lines', () => {
    const chunk = { run_id: 3, stream: 'stdout', text: 'hi\n', offset: 100 };
    expect(liveLines('command.output', chunk, 3, 100)).toEqual([]);
    expect(liveLines('command.output', chunk, 3, 50)).toEqual([{ kind: 'out', text: 'hi' }]);
    expect(liveLines('command.output', chunk, 4, 0)).toEqual([]);
    const text = [
      '{"type":"svc.command_started","command":"make"}',
      '{"type":"svc.output","stream":"stderr","text":"warn"}',
      '{"type":"assistant","message":{}}',
      '{"type":"result"}',
    ].join('\n');
    expect(transcriptLines(text, 9)).toEqual([
      { kind: 'cmd', text: '$ make' },
      { kind: 'err', text: 'warn' },
      { kind: 'note', text: '… earlier agent output: svc task logs 9' },
    ]);
  });
});
