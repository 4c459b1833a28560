/**
 * One MCP tool: a mirror of one API route (decision 121). Its arguments are the route's path ids
 * plus the route's own body or query, parsed with the route's zod schema through `parseWith`, so
 * a refusal is the same SvcError the route throws; its input JSON Schema is derived from that same
 * schema. `run` calls the service code the route calls and answers the route's body. A restricted
 * task's agent is held to what does not loosen its restriction (restricted.ts, decision 125).
 */
import { z } from 'zod';
import { SvcError } from '../errors.js';
import { parseWith } from '../input/index.js';
import type { Services } from '../services.js';
import { checkRestrictedCaller } from './restricted.js';
import type { ToolContext, ToolIds } from './tool-context.js';

export type { ToolCaller, ToolContext, ToolIds } from './tool-context.js';

/**
 * A tool answer that is text rather than a JSON body (`tasks_diff`'s diff): the text is the first
 * content item as is, and `facts` (what the route says in headers) a second one, as JSON.
 */
export class ToolText {
  constructor(
    readonly text: string,
    readonly facts: Record<string, unknown>,
  ) {}
}

/**
 * A path id of the route, passed as an argument: an integer (`task_id`, `run_id`, `project_id`),
 * or a name for routes whose ids are names (`trigger_id`).
 */
export interface ToolId {
  key: string;
  /** What it names, for messages (`task`, `step run`). */
  what: string;
  /** Default `integer`. */
  kind?: 'integer' | 'name';
}

export interface ToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  /** The route mirrored, `METHOD /path` as registered (docs and the parity test read it). */
  route: string;
  /** True when the tool changes nothing (MCP `readOnlyHint`). */
  readOnly: boolean;
  ids?: readonly ToolId[];
  /**
   * What the route checks between its path ids and its body (the task exists, the run is the
   * task's), so a call fails on the same thing first, with the same error.
   */
  guard?: (s: Services, ids: ToolIds) => void;
  /**
   * The route's body or query schema. Query schemas read strings, as a query string carries them;
   * a number or boolean argument is read as its text, so `{"project_id": 3}` and `"3"` both work.
   */
  input?: { schema: S; from: 'body' | 'query' };
  run(ctx: ToolContext, input: z.infer<S>, ids: ToolIds): unknown;
}

export interface McpTool {
  name: string;
  description: string;
  route: string;
  readOnly: boolean;
  /**
   * The route's own zod schema the arguments are parsed with (absent: the route takes no body or
   * query). The parity test checks it is the very object the route parses with.
   */
  input?: { schema: z.ZodType; from: 'body' | 'query' };
  /** JSON Schema of the arguments (draft-07, as the SDK's own server renders zod). */
  inputSchema: { type: 'object'; [key: string]: unknown };
  call(ctx: ToolContext, args: Record<string, unknown>): Promise<unknown>;
}

const EMPTY = z.strictObject({});

function readId(args: Record<string, unknown>, id: ToolId): number | string {
  const v = args[id.key];
  if (id.kind === 'name') {
    if (typeof v === 'string' && v !== '' && v.length <= 256) return v;
    throw new SvcError('validation_failed', `${id.key} is required: the ${id.what}'s name`, {
      field: id.key,
    });
  }
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return v;
  if (typeof v === 'string' && /^[1-9]\d{0,15}$/.test(v)) return Number(v);
  throw new SvcError(
    'validation_failed',
    `${id.key} is required: the ${id.what} id, a positive integer`,
    { field: id.key },
  );
}

function asQueryValue(v: unknown): unknown {
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
}

function jsonSchemaOf<S extends z.ZodType>(spec: ToolSpec<S>): McpTool['inputSchema'] {
  const base = z.toJSONSchema(spec.input?.schema ?? EMPTY, {
    io: 'input',
    target: 'draft-7',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  delete base.$schema;
  const properties = { ...((base.properties as Record<string, unknown>) ?? {}) };
  const required = [...((base.required as string[] | undefined) ?? [])];
  for (const id of [...(spec.ids ?? [])].reverse()) {
    properties[id.key] =
      id.kind === 'name'
        ? { type: 'string', minLength: 1, maxLength: 256, description: `The ${id.what} id.` }
        : { type: 'integer', minimum: 1, description: `The ${id.what} id.` };
    required.unshift(id.key);
  }
  const out: McpTool['inputSchema'] = { ...base, type: 'object', properties };
  if (required.length > 0) out.required = required;
  else delete out.required;
  return out;
}

export function defineTool<S extends z.ZodType = typeof EMPTY>(spec: ToolSpec<S>): McpTool {
  let inputSchema: McpTool['inputSchema'] | undefined;
  return {
    name: spec.name,
    description: spec.description,
    route: spec.route,
    readOnly: spec.readOnly,
    ...(spec.input ? { input: { schema: spec.input.schema, from: spec.input.from } } : {}),
    // Rendered when an MCP client first lists the tools, not while the daemon starts: the
    // tools are defined as their modules load, and rendering all of them cost ~10 ms a start.
    get inputSchema() {
      inputSchema ??= jsonSchemaOf(spec);
      return inputSchema;
    },
    call: async (ctx, args) => {
      const ids: ToolIds = {};
      const rest: Record<string, unknown> = {};
      const idKeys = new Set((spec.ids ?? []).map((i) => i.key));
      for (const id of spec.ids ?? []) ids[id.key] = readId(args, id);
      spec.guard?.(ctx.s, ids);
      const query = spec.input?.from === 'query';
      for (const [k, v] of Object.entries(args))
        if (!idKeys.has(k)) rest[k] = query ? asQueryValue(v) : v;
      const schema = spec.input?.schema ?? EMPTY;
      const input = parseWith(schema, rest, spec.input?.from ?? 'body') as z.infer<S>;
      checkRestrictedCaller(ctx, spec, input, ids);
      return spec.run(ctx, input, ids);
    },
  };
}
