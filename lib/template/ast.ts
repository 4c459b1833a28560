import { quote } from './quote.js';

// The parse tree, shaped like Go's text/template/parse so the evaluator can follow Go's exec.go
// step by step. `pos` is a string index into the source, used for error positions.

export interface TextNode {
  readonly kind: 'text';
  readonly pos: number;
  readonly text: string;
}
export interface ActionNode {
  readonly kind: 'action';
  readonly pos: number;
  readonly pipe: PipeNode;
}
export interface IfNode {
  readonly kind: 'if' | 'with';
  readonly pos: number;
  readonly pipe: PipeNode;
  readonly list: ListNode;
  readonly elseList: ListNode | null;
}
export interface RangeNode {
  readonly kind: 'range';
  readonly pos: number;
  readonly pipe: PipeNode;
  readonly list: ListNode;
  readonly elseList: ListNode | null;
}
export interface TemplateNode {
  readonly kind: 'template';
  readonly pos: number;
  readonly name: string;
  readonly pipe: PipeNode | null;
}
export interface BranchNode {
  readonly kind: 'break' | 'continue';
  readonly pos: number;
}
export interface ListNode {
  readonly kind: 'list';
  readonly pos: number;
  readonly nodes: Node[];
}
/** Returned by the parser for {{end}} and {{else}}; never part of a finished tree. */
export type DelimiterNode =
  | { readonly kind: 'end'; readonly pos: number }
  | { readonly kind: 'else'; readonly pos: number };
export type Node =
  | TextNode
  | ActionNode
  | IfNode
  | RangeNode
  | TemplateNode
  | BranchNode
  | ListNode;

export interface PipeNode {
  readonly kind: 'pipe';
  readonly pos: number;
  isAssign: boolean;
  readonly decl: VariableNode[];
  readonly cmds: CommandNode[];
}
export interface CommandNode {
  readonly kind: 'command';
  readonly pos: number;
  readonly args: ArgNode[];
}
export interface FieldNode {
  readonly kind: 'field';
  readonly pos: number;
  readonly ident: string[];
}
export interface VariableNode {
  readonly kind: 'variable';
  readonly pos: number;
  readonly ident: string[];
}
export interface ChainNode {
  readonly kind: 'chain';
  readonly pos: number;
  readonly node: ArgNode;
  readonly fields: string[];
}
export interface IdentifierNode {
  readonly kind: 'identifier';
  readonly pos: number;
  readonly name: string;
}
export interface DotNode {
  readonly kind: 'dot';
  readonly pos: number;
}
export interface NilNode {
  readonly kind: 'nil';
  readonly pos: number;
}
export interface BoolNode {
  readonly kind: 'bool';
  readonly pos: number;
  readonly value: boolean;
}
export interface NumberNode {
  readonly kind: 'number';
  readonly pos: number;
  readonly text: string;
  /** The value when used without a type context: Go's int or float64 constant. */
  readonly value: number;
  /** Set when the constant is an integer that does not fit Go's int (exec reports it). */
  readonly overflows: boolean;
}
export interface StringNode {
  readonly kind: 'string';
  readonly pos: number;
  readonly quoted: string;
  readonly text: string;
}
export type ArgNode =
  | FieldNode
  | VariableNode
  | ChainNode
  | IdentifierNode
  | DotNode
  | NilNode
  | BoolNode
  | NumberNode
  | StringNode
  | PipeNode;

type AnyNode = Node | ArgNode | CommandNode | DelimiterNode;

function pipeString(p: PipeNode): string {
  let s = '';
  if (p.decl.length > 0) {
    s = p.decl.map(nodeString).join(', ') + (p.isAssign ? ' = ' : ' := ');
  }
  return s + p.cmds.map(nodeString).join(' | ');
}

function controlString(keyword: string, n: IfNode | RangeNode): string {
  const body = nodeString(n.list);
  const tail = n.elseList ? `{{else}}${nodeString(n.elseList)}` : '';
  return `{{${keyword} ${pipeString(n.pipe)}}}${body}${tail}{{end}}`;
}

/** Go's Node.String(): how error messages show the node being executed. */
export function nodeString(n: AnyNode): string {
  switch (n.kind) {
    case 'text':
      return n.text;
    case 'action':
      return `{{${pipeString(n.pipe)}}}`;
    case 'if':
    case 'with':
    case 'range':
      return controlString(n.kind, n);
    case 'template':
      return `{{template ${quote(n.name)}${n.pipe ? ` ${pipeString(n.pipe)}` : ''}}}`;
    case 'break':
    case 'continue':
    case 'end':
    case 'else':
      return `{{${n.kind}}}`;
    case 'list':
      return n.nodes.map(nodeString).join('');
    case 'pipe':
      return pipeString(n);
    case 'command':
      return n.args
        .map((a) => (a.kind === 'pipe' ? `(${pipeString(a)})` : nodeString(a)))
        .join(' ');
    case 'field':
      return n.ident.map((i) => `.${i}`).join('');
    case 'variable':
      return n.ident.join('.');
    case 'chain': {
      const head = n.node.kind === 'pipe' ? `(${pipeString(n.node)})` : nodeString(n.node);
      return head + n.fields.map((f) => `.${f}`).join('');
    }
    case 'identifier':
      return n.name;
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'bool':
      return String(n.value);
    case 'number':
      return n.text;
    case 'string':
      return n.quoted;
  }
}
