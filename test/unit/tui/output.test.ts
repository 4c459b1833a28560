// Issue 12 point 1: the detail pane's live output (docs/events.md framing).
import { describe, expect, it } from 'vitest';
import {
  agentStreamNote,
  appendOutput,
  liveLines,
  transcriptLines,
} from '../../../cli/tui/output.js';

describe('output', () => {
  it('reads a transcript tail: output text and the commands started', () => {
    const t = [
      JSON.stringify({ type: 'svc.command_started', command: 'npm test' }),
      JSON.stringify({ type: 'svc.output', stream: 'stdout', text: 'ok' }),
      JSON.stringify({ type: 'svc.output', stream: 'stderr', text: 'warn' }),
      JSON.stringify({ type: 'svc.agent_debug', argv: [] }),
      'not json',
      '',
    ].join('\n');
    expect(transcriptLines(t)).toEqual(['$ npm test', 'ok', '! warn', 'not json']);
  });

  it('stands one note for a run of raw agent-stream lines', () => {
    const t = [
      JSON.stringify({ type: 'system', subtype: 'init' }),
      JSON.stringify({ type: 'assistant', message: {} }),
      JSON.stringify({ type: 'svc.output', stream: 'stdout', text: 'between' }),
      JSON.stringify({ type: 'item.completed', item: {} }),
    ].join('\n');
    const note = agentStreamNote(7);
    expect(note).toBe('… earlier agent output: svc task logs 7');
    expect(transcriptLines(t, 7)).toEqual([note, 'between', note]);
  });

  it('renders live frames and drops what the transcript already held', () => {
    const read = new Map([[3, 100]]);
    const frame = (event: string, data: unknown, id?: string) => ({
      event,
      data: JSON.stringify(data),
      ...(id ? { id } : {}),
    });
    expect(
      liveLines(frame('command.output', { run_id: 3, text: 'old', offset: 90 }), read).lines,
    ).toEqual([]);
    expect(
      liveLines(frame('command.output', { run_id: 3, text: 'new', offset: 120 }), read).lines,
    ).toEqual(['new']);
    expect(
      liveLines(
        frame('command.output', { run_id: 4, stream: 'stderr', text: 'e', offset: 1 }),
        read,
      ).lines,
    ).toEqual(['! e']);
    // A frame carries a whole chunk of lines (decision 232): each stderr line is marked.
    expect(
      liveLines(
        frame('command.output', { run_id: 4, stream: 'stderr', text: 'e1\ne2', offset: 9 }),
        read,
      ).lines,
    ).toEqual(['! e1', '! e2']);
    expect(liveLines(frame('agent.output', { run_id: 5, text: 'a\nb\n' }), read).lines).toEqual([
      'a',
      'b',
    ]);
    expect(
      liveLines(frame('agent.tool_use', { tools: [{ name: 'Bash', summary: 'ls' }] }), read).lines,
    ).toEqual(['→ Bash ls']);
    expect(liveLines(frame('task.state_changed', {}, '12'), read)).toEqual({
      lines: [],
      durable: true,
    });
    expect(liveLines(frame('agent.usage', { cost_usd: 1 }), read)).toEqual({
      lines: [],
      durable: false,
    });
  });

  it('keeps the last lines only', () => {
    expect(appendOutput(['a', 'b'], ['c', 'd'], 3)).toEqual(['b', 'c', 'd']);
  });
});
