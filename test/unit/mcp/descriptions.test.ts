// Issue 20 point 3: every field of every MCP tool's input schema carries a description, taken from
// the zod schema's `.describe()` text (or, for a path id, from the tool's id): a model fills
// arguments from these, and a field without one is a guess. A new tool or field without a
// description fails here, naming it.
import { describe, expect, it } from 'vitest';
import { builtinTools } from '../../../kernel/mcp/index.js';

type Schema = { properties?: Record<string, Schema>; description?: unknown };

/** `tool.field` (and `tool.field.inner` for nested objects) of every field with no description. */
function undescribed(tool: string, schema: Schema, path = ''): string[] {
  const missing: string[] = [];
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    const at = `${path}${key}`;
    if (typeof field.description !== 'string' || field.description.trim() === '')
      missing.push(`${tool}.${at}`);
    missing.push(...undescribed(tool, field, `${at}.`));
  }
  return missing;
}

describe('MCP tool input schemas', () => {
  it('describe every field', () => {
    const missing = builtinTools.flatMap((t) => undescribed(t.name, t.inputSchema as Schema));
    expect(missing).toEqual([]);
  });

  it('take the description from the zod schema', () => {
    const create = builtinTools.find((t) => t.name === 'tasks_create');
    const props = ((create?.inputSchema ?? {}) as Schema).properties ?? {};
    expect(props.forge_issue?.description).toMatch(/forge_pull/);
    expect(props.project_id?.description).toMatch(/project/);
    const show = builtinTools.find((t) => t.name === 'tasks_show');
    expect(((show?.inputSchema ?? {}) as Schema).properties?.task_id?.description).toBe(
      'The task id.',
    );
  });
});
