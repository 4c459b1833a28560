import {
  type ArgNode,
  type CommandNode,
  type DelimiterNode,
  type ListNode,
  type Node,
  nodeString,
  type PipeNode,
  type TemplateNode,
  type VariableNode,
} from './ast.js';
import { parseError, type TemplateError } from './errors.js';
import { type LexOptions, lex, type Token, type TokenType, tokenString } from './lexer.js';
import { LiteralError, parseNumber, unquoteString } from './literals.js';
import { quote } from './quote.js';

// A port of Go's text/template/parse parser (parse.go): same grammar, same checks (undefined
// functions and variables are parse errors), same messages. Positions are better than Go's where
// it only knows a line: errors point at the offending token, and an unclosed block points at its
// opening action rather than at the end of the input.

const MAX_PAREN_DEPTH = 200;
const MAX_BLOCK_DEPTH = 500;

interface Open {
  readonly what: string;
  readonly pos: number;
}

interface Scope {
  vars: string[];
  rangeDepth: number;
  parenDepth: number;
}

class ParseFailure extends Error {
  constructor(readonly error: TemplateError) {
    super(error.message);
  }
}

const OPERAND_START: ReadonlySet<TokenType> = new Set<TokenType>([
  'bool',
  'charConstant',
  'dot',
  'field',
  'identifier',
  'number',
  'nil',
  'rawString',
  'string',
  'variable',
  'leftParen',
]);

type Item = Node | DelimiterNode;

class Parser {
  private i = 0;
  private scope: Scope = { vars: ['$'], rangeDepth: 0, parenDepth: 0 };
  private blockDepth = 0;
  private actionPos = 0;
  readonly trees = new Map<string, ListNode>();
  private readonly definedAt = new Map<string, number>();

  constructor(
    private readonly name: string,
    private readonly source: string,
    private readonly tokens: Token[],
    private readonly hasFunction: (name: string) => boolean,
  ) {}

  fail(pos: number, detail: string): never {
    throw new ParseFailure(parseError(this.name, this.source, pos, detail));
  }

  // Token access. The list ends with an eof or error token, which then repeats forever.
  next(): Token {
    const t = this.tokens[Math.min(this.i, this.tokens.length - 1)]!;
    this.i++;
    return t;
  }
  backup(): void {
    this.i--;
  }
  peek(): Token {
    return this.tokens[Math.min(this.i, this.tokens.length - 1)]!;
  }
  nextNonSpace(): Token {
    let t = this.next();
    while (t.type === 'space') t = this.next();
    return t;
  }
  peekNonSpace(): Token {
    const t = this.nextNonSpace();
    this.backup();
    return t;
  }
  unexpected(t: Token, context: string): never {
    if (t.type === 'error') this.fail(t.pos, t.val);
    this.fail(t.pos, `unexpected ${tokenString(t)} in ${context}`);
  }
  expect(type: TokenType, context: string): Token {
    const t = this.nextNonSpace();
    if (t.type !== type) this.unexpected(t, context);
    return t;
  }

  /** A fresh tree for define and block bodies: Go gives each its own variables and depth. */
  inNewTree<T>(fn: () => T): T {
    const saved = this.scope;
    this.scope = { vars: ['$'], rangeDepth: 0, parenDepth: 0 };
    const result = fn();
    this.scope = saved;
    return result;
  }

  add(name: string, root: ListNode, pos: number): void {
    const existing = this.trees.get(name);
    if (existing === undefined || isEmptyTree(existing)) {
      this.trees.set(name, root);
      this.definedAt.set(name, pos);
    } else if (!isEmptyTree(root)) {
      this.fail(this.definedAt.get(name) ?? pos, `multiple definition of template ${quote(name)}`);
    }
  }

  parse(): void {
    const root: ListNode = { kind: 'list', pos: this.peek().pos, nodes: [] };
    while (this.peek().type !== 'eof') {
      if (this.peek().type === 'leftDelim') {
        const mark = this.i;
        const delim = this.next();
        if (this.nextNonSpace().type === 'define') {
          this.parseDefinition(delim.pos);
          continue;
        }
        this.i = mark;
      }
      const n = this.textOrAction();
      if (n.kind === 'end' || n.kind === 'else') this.fail(n.pos, `unexpected ${nodeString(n)}`);
      root.nodes.push(n);
    }
    this.add(this.name, root, 0);
  }

  parseDefinition(pos: number): void {
    const context = 'define clause';
    const t = this.nextNonSpace();
    if (t.type !== 'string' && t.type !== 'rawString') this.unexpected(t, context);
    const name = this.literal(t.pos, () => unquoteString(t.val));
    this.expect('rightDelim', context);
    this.inNewTree(() => {
      const { list, next } = this.itemList({ what: 'define', pos });
      if (next.kind !== 'end') this.fail(next.pos, `unexpected ${nodeString(next)} in ${context}`);
      this.add(name, list, pos);
    });
  }

  itemList(open: Open): { list: ListNode; next: DelimiterNode } {
    if (++this.blockDepth > MAX_BLOCK_DEPTH) this.fail(open.pos, 'max nesting depth exceeded');
    const list: ListNode = { kind: 'list', pos: this.peekNonSpace().pos, nodes: [] };
    while (this.peekNonSpace().type !== 'eof') {
      const n = this.textOrAction();
      if (n.kind === 'end' || n.kind === 'else') {
        this.blockDepth--;
        return { list, next: n };
      }
      list.nodes.push(n);
    }
    this.fail(open.pos, `unexpected EOF: {{${open.what}}} has no matching {{end}}`);
  }

  textOrAction(): Item {
    const t = this.nextNonSpace();
    if (t.type === 'text') return { kind: 'text', pos: t.pos, text: t.val };
    if (t.type === 'leftDelim') {
      this.actionPos = t.pos;
      return this.action();
    }
    this.unexpected(t, 'input');
  }

  action(): Item {
    const at = this.actionPos;
    const t = this.nextNonSpace();
    switch (t.type) {
      case 'block':
        return this.blockControl(at);
      case 'break':
      case 'continue':
        return this.branchControl(t.type, at);
      case 'else':
        return this.elseControl(at);
      case 'end':
        this.expect('rightDelim', 'end');
        return { kind: 'end', pos: at };
      case 'if':
      case 'range':
      case 'with':
        return this.control(t.type, at);
      case 'template':
        return this.templateControl();
    }
    this.backup();
    const pipe = this.pipeline('command', 'rightDelim');
    return { kind: 'action', pos: pipe.pos, pipe };
  }

  branchControl(kind: 'break' | 'continue', at: number): Node {
    const t = this.nextNonSpace();
    if (t.type !== 'rightDelim') this.unexpected(t, `{{${kind}}}`);
    if (this.scope.rangeDepth === 0) this.fail(at, `{{${kind}}} outside {{range}}`);
    return { kind, pos: at };
  }

  elseControl(at: number): DelimiterNode {
    const peek = this.peekNonSpace();
    // "{{else if …" and "{{else with …" leave the keyword for control() to pick up.
    if (peek.type !== 'if' && peek.type !== 'with') this.expect('rightDelim', 'else');
    return { kind: 'else', pos: at };
  }

  control(kind: 'if' | 'range' | 'with', at: number): Node {
    const varsLen = this.scope.vars.length;
    const pipe = this.pipeline(kind, 'rightDelim');
    if (kind === 'range') this.scope.rangeDepth++;
    const body = this.itemList({ what: kind, pos: at });
    if (kind === 'range') this.scope.rangeDepth--;
    let elseList: ListNode | null = null;
    if (body.next.kind === 'else') {
      const chained = this.peek().type;
      if ((kind === 'if' && chained === 'if') || (kind === 'with' && chained === 'with')) {
        // {{else if b}}…{{end}} is {{else}}{{if b}}…{{end}}{{end}}: one {{end}} closes both.
        const elsePos = body.next.pos;
        this.next();
        elseList = { kind: 'list', pos: elsePos, nodes: [this.control(kind, elsePos)] };
      } else {
        const tail = this.itemList({ what: kind, pos: at });
        if (tail.next.kind !== 'end') {
          this.fail(tail.next.pos, `expected end; found ${nodeString(tail.next)}`);
        }
        elseList = tail.list;
      }
    }
    this.scope.vars.length = varsLen;
    if (kind === 'range') return { kind, pos: pipe.pos, pipe, list: body.list, elseList };
    return { kind, pos: pipe.pos, pipe, list: body.list, elseList };
  }

  templateName(t: Token, context: string): string {
    if (t.type !== 'string' && t.type !== 'rawString') this.unexpected(t, context);
    return this.literal(t.pos, () => unquoteString(t.val));
  }

  blockControl(at: number): TemplateNode {
    const context = 'block clause';
    const t = this.nextNonSpace();
    const name = this.templateName(t, context);
    const pipe = this.pipeline(context, 'rightDelim');
    this.inNewTree(() => {
      const { list, next } = this.itemList({ what: 'block', pos: at });
      if (next.kind !== 'end') this.fail(next.pos, `unexpected ${nodeString(next)} in ${context}`);
      this.add(name, list, at);
    });
    return { kind: 'template', pos: t.pos, name, pipe };
  }

  templateControl(): TemplateNode {
    const context = 'template clause';
    const t = this.nextNonSpace();
    const name = this.templateName(t, context);
    let pipe: PipeNode | null = null;
    if (this.nextNonSpace().type !== 'rightDelim') {
      this.backup();
      pipe = this.pipeline(context, 'rightDelim');
    }
    return { kind: 'template', pos: t.pos, name, pipe };
  }

  pipeline(context: string, end: 'rightDelim' | 'rightParen'): PipeNode {
    const pipe: PipeNode = {
      kind: 'pipe',
      pos: this.peekNonSpace().pos,
      isAssign: false,
      decl: [],
      cmds: [],
    };
    // Declarations: "$x :=", "$x =", and in range "$i, $e :=".
    for (;;) {
      const v = this.peekNonSpace();
      if (v.type !== 'variable') break;
      const mark = this.i;
      this.next();
      const after = this.peekNonSpace();
      if (after.type === 'assign' || after.type === 'declare') {
        pipe.isAssign = after.type === 'assign';
        this.nextNonSpace();
        pipe.decl.push(this.variable(v));
        this.scope.vars.push(v.val);
        break;
      }
      if (after.type === 'char' && after.val === ',') {
        this.nextNonSpace();
        pipe.decl.push(this.variable(v));
        this.scope.vars.push(v.val);
        if (context === 'range' && pipe.decl.length < 2) {
          const t = this.peekNonSpace();
          if (t.type === 'variable' || t.type === 'rightDelim' || t.type === 'rightParen') continue;
          this.fail(t.pos, 'range can only initialize variables');
        }
        this.fail(v.pos, `too many declarations in ${context}`);
      }
      this.i = mark;
      break;
    }
    for (;;) {
      const t = this.nextNonSpace();
      if (t.type === end) {
        this.checkPipeline(pipe, context, t);
        return pipe;
      }
      if (!OPERAND_START.has(t.type)) this.unexpected(t, context);
      this.backup();
      pipe.cmds.push(this.command());
    }
  }

  checkPipeline(pipe: PipeNode, context: string, end: Token): void {
    if (pipe.cmds.length === 0) this.fail(end.pos, `missing value for ${context}`);
    pipe.cmds.forEach((c, i) => {
      const first = c.args[0]!.kind;
      if (i > 0 && ['bool', 'dot', 'nil', 'number', 'string'].includes(first)) {
        this.fail(c.pos, `non executable command in pipeline stage ${i + 1}`);
      }
    });
  }

  command(): CommandNode {
    const cmd: CommandNode = { kind: 'command', pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const t = this.next();
      if (t.type === 'space') continue;
      if (t.type === 'rightDelim' || t.type === 'rightParen') this.backup();
      else if (t.type !== 'pipe') this.unexpected(t, 'operand');
      break;
    }
    if (cmd.args.length === 0) this.fail(cmd.pos, 'empty command');
    return cmd;
  }

  operand(): ArgNode | null {
    const node = this.term();
    if (node === null || this.peek().type !== 'field') return node;
    const fields: string[] = [];
    while (this.peek().type === 'field') fields.push(this.next().val.slice(1));
    switch (node.kind) {
      case 'field':
        return { kind: 'field', pos: node.pos, ident: [...node.ident, ...fields] };
      case 'variable':
        return { kind: 'variable', pos: node.pos, ident: [...node.ident, ...fields] };
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        return this.fail(node.pos, `unexpected . after term ${quote(nodeString(node))}`);
      default:
        return { kind: 'chain', pos: node.pos, node, fields };
    }
  }

  term(): ArgNode | null {
    const t = this.nextNonSpace();
    switch (t.type) {
      case 'identifier':
        if (!this.hasFunction(t.val)) this.fail(t.pos, `function ${quote(t.val)} not defined`);
        return { kind: 'identifier', pos: t.pos, name: t.val };
      case 'dot':
        return { kind: 'dot', pos: t.pos };
      case 'nil':
        return { kind: 'nil', pos: t.pos };
      case 'variable':
        if (!this.scope.vars.includes(t.val)) {
          this.fail(t.pos, `undefined variable ${quote(t.val)}`);
        }
        return this.variable(t);
      case 'field':
        return { kind: 'field', pos: t.pos, ident: [t.val.slice(1)] };
      case 'bool':
        return { kind: 'bool', pos: t.pos, value: t.val === 'true' };
      case 'number':
      case 'charConstant': {
        const n = this.literal(t.pos, () => parseNumber(t.val, t.type === 'charConstant'));
        return { kind: 'number', pos: t.pos, text: t.val, ...n };
      }
      case 'leftParen': {
        if (this.scope.parenDepth >= MAX_PAREN_DEPTH)
          this.fail(t.pos, 'max expression depth exceeded');
        this.scope.parenDepth++;
        const pipe = this.pipeline('parenthesized pipeline', 'rightParen');
        this.scope.parenDepth--;
        return pipe;
      }
      case 'string':
      case 'rawString':
        return {
          kind: 'string',
          pos: t.pos,
          quoted: t.val,
          text: this.literal(t.pos, () => unquoteString(t.val)),
        };
    }
    this.backup();
    return null;
  }

  variable(t: Token): VariableNode {
    return { kind: 'variable', pos: t.pos, ident: [t.val] };
  }

  literal<T>(pos: number, read: () => T): T {
    try {
      return read();
    } catch (e) {
      if (e instanceof LiteralError) this.fail(pos, e.message);
      throw e;
    }
  }
}

/** Go's IsEmptyTree: only whitespace text (a definition that may be replaced). */
function isEmptyTree(list: ListNode): boolean {
  return list.nodes.every((n) => n.kind === 'text' && n.text.trim() === '');
}

export interface ParseOptions extends LexOptions {
  readonly hasFunction: (name: string) => boolean;
}

/**
 * Parses source into its named trees: the main one under `name`, plus every {{define}} and
 * {{block}}. Throws TemplateError (kind 'parse').
 */
export function parse(name: string, source: string, options: ParseOptions): Map<string, ListNode> {
  const parser = new Parser(name, source, lex(source, options), options.hasFunction);
  try {
    parser.parse();
  } catch (e) {
    if (e instanceof ParseFailure) throw e.error;
    throw e;
  }
  return parser.trees;
}
