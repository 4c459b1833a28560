import { visit } from 'yaml';
import { clipEchoes, clipText } from '../clip.js';
import { editText } from './editor.js';
import { EditFailure, type EditFinding, type EditResult } from './finding.js';
import { detectLayout } from './layout.js';
import { type EditOp, EditOpsSchema } from './op-schema.js';
import { PathSyntaxError, parsePath } from './path.js';
import { BOM, parseSource, type SourceDoc } from './source-doc.js';
import { fromJson, treeEquals } from './tree.js';
import { applyOpToTree, type PlannedOp } from './tree-ops.js';
import type { Layout } from './value-render.js';

/**
 * Applies edit ops, in order, to a YAML file's own text. Each op splices only the lines it is
 * about; the result of every op is re-parsed and compared with the op applied to the plain value,
 * so a splice that would change anything else is reported instead of written. Any finding means
 * no text at all: the caller writes nothing.
 */
export function applyEdits(source: string, ops: readonly EditOp[]): EditResult {
  const checked = EditOpsSchema.safeParse(ops);
  if (!checked.success) return { ok: false, findings: schemaFindings(checked.error.issues, ops) };

  const hasBom = source.startsWith(BOM);
  const body = hasBom ? source.slice(BOM.length) : source;
  const parsed = parseSource(body);
  if (!parsed.ok) {
    return fail(-1, '', 'source_unparseable', `the file does not parse: ${parsed.message}`);
  }
  let current: SourceDoc = parsed.source;
  // Without a final line break the last line is a special case for every splice (and a block
  // scalar ending there reads differently), so edit with one and take it off again afterwards.
  const lacksFinalBreak = body !== '' && !body.endsWith('\n');
  if (lacksFinalBreak) {
    const withBreak = parseSource(body + current.eol);
    if (withBreak.ok && treeEquals(withBreak.source.tree, current.tree)) current = withBreak.source;
  }
  const layout = detectLayout(parsed.source);
  for (const [index, op] of checked.data.entries()) {
    const step = applyOne(current, op, layout);
    if (!step.ok) return fail(index, op.path, step.code, step.message);
    current = step.source;
  }
  return { ok: true, text: (hasBom ? BOM : '') + restoreMissingBreak(current, lacksFinalBreak) };
}

/**
 * Takes the added final line break off again, unless the file now ends in a block scalar that
 * keeps its last line break (`|`, `|+`): readers differ on such a block without the break.
 */
function restoreMissingBreak(current: SourceDoc, lacksFinalBreak: boolean): string {
  const { text, eol } = current;
  if (!lacksFinalBreak || !text.endsWith(eol) || endsInKeptBreak(current)) return text;
  const stripped = text.slice(0, -eol.length);
  const reparsed = parseSource(stripped);
  return reparsed.ok && treeEquals(reparsed.source.tree, current.tree) ? stripped : text;
}

type Step =
  | { ok: true; source: SourceDoc }
  | { ok: false; code: EditFinding['code']; message: string };

function applyOne(current: SourceDoc, op: EditOp, layout: Layout): Step {
  try {
    const planned = plan(op);
    const expected = applyOpToTree(current.tree, planned);
    const text = editText(current, planned, expected, layout);
    const reparsed = parseSource(text);
    if (!reparsed.ok) {
      return {
        ok: false,
        code: 'result_unparseable',
        message: `the edited file would not parse: ${reparsed.message}`,
      };
    }
    if (!treeEquals(reparsed.source.tree, expected)) {
      return {
        ok: false,
        code: 'result_mismatch',
        message: 'the edited file would not hold the intended value; nothing was changed',
      };
    }
    return { ok: true, source: reparsed.source };
  } catch (error) {
    if (error instanceof EditFailure)
      return { ok: false, code: error.code, message: error.message };
    if (error instanceof PathSyntaxError)
      return { ok: false, code: 'bad_path', message: error.message };
    throw error;
  }
}

function plan(op: EditOp): PlannedOp {
  const path = parsePath(op.path);
  switch (op.op) {
    case 'set':
      return { op: 'set', path, value: fromJson(op.value), block: op.block === true };
    case 'insert':
      return { op: 'insert', path, value: new Map(op.item.map((e) => [e.key, fromJson(e.value)])) };
    case 'remove':
      return { op: 'remove', path };
    case 'move':
      return { op: 'move', path, to: op.to };
  }
}

/** A finding quotes at most 200 bytes of the client's path or keys (decision 189). */
function fail(
  opIndex: number,
  path: string,
  code: EditFinding['code'],
  message: string,
): EditResult {
  return {
    ok: false,
    findings: [
      { op_index: opIndex, path: clipText(path), code, message: clipEchoes(message, [path]) },
    ],
  };
}

interface SchemaIssue {
  path: PropertyKey[];
  message: string;
  code: string;
}

function schemaFindings(issues: readonly SchemaIssue[], ops: readonly EditOp[]): EditFinding[] {
  return issues.map((issue) => {
    const [first, ...rest] = issue.path;
    if (typeof first !== 'number') {
      return {
        op_index: -1,
        path: '',
        code: issue.code === 'too_big' ? 'too_many_ops' : 'invalid_op',
        message: issue.message,
      };
    }
    const candidate: unknown = ops[first];
    const path =
      candidate !== null &&
      typeof candidate === 'object' &&
      'path' in candidate &&
      typeof candidate.path === 'string'
        ? candidate.path
        : '';
    const where = rest.length > 0 ? `${rest.map(String).join('.')}: ` : '';
    return {
      op_index: first,
      path: clipText(path),
      code: 'invalid_op',
      message: clipEchoes(where + issue.message, [path, ...rest.map(String)]),
    };
  });
}

function endsInKeptBreak(current: SourceDoc): boolean {
  let kept = false;
  visit(current.doc, {
    Scalar(_key, node) {
      if (node.type !== 'BLOCK_LITERAL' && node.type !== 'BLOCK_FOLDED') return;
      if (!node.range || node.range[1] < current.text.length) return;
      const header = current.text.slice(node.range[0]).split('\n', 1)[0]!;
      kept = !/^[|>][1-9]?-/.test(header) && !/^[|>]-/.test(header);
    },
  });
  return kept;
}
