// A tool's input JSON Schema is rendered when an MCP client first asks for it, not when the tool
// is defined: every built-in tool is defined while the daemon's modules load, and rendering them
// all then cost every start ~10 ms before the first request (issue 22's cold start).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../../kernel/mcp/index.js';

describe('a tool input schema', () => {
  it('is rendered on first read, once, with the path ids first', () => {
    let rendered = 0;
    const schema = z.strictObject({
      note: z.lazy(() => {
        rendered++;
        return z.string().describe('A note.');
      }),
    });
    const tool = defineTool({
      name: 'tasks_note',
      description: 'Notes a task.',
      route: 'POST /v1/tasks/:id/note',
      readOnly: false,
      ids: [{ key: 'task_id', what: 'task' }],
      input: { schema, from: 'body' },
      run: () => ({}),
    });
    expect(rendered).toBe(0);
    const first = tool.inputSchema;
    const once = rendered;
    expect(once).toBeGreaterThan(0);
    expect(tool.inputSchema).toBe(first);
    expect(rendered).toBe(once);
    expect(first.required).toEqual(['task_id', 'note']);
    expect(first.properties).toMatchObject({
      task_id: { type: 'integer', minimum: 1 },
      note: { type: 'string', description: 'A note.' },
    });
  });
});
