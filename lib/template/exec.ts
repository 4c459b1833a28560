import {
  type ArgNode,
  type ChainNode,
  type CommandNode,
  type FieldNode,
  type IdentifierNode,
  type IfNode,
  type ListNode,
  type Node,
  type NumberNode,
  nodeString,
  type PipeNode,
  type RangeNode,
  type TemplateNode,
  type VariableNode,
} from './ast.js';
import { BUILTINS, type Builtin, type ParamType } from './builtins.js';
import { execError, isTemplateError, type TemplateError } from './errors.js';
import { formatValue } from './fmt.js';
import { quote } from './quote.js';
import { deepUnwrap, findTaint, keyPrinterOf, taint, taintTree, unwrap } from './taint.js';
import { goType, hasKey, isInt, isMap, isTrue, sortedKeys } from './values.js';

// The evaluator, a port of Go's text/template exec.go over the value model of values.ts. Where a
// Go panic unwinds (errors, {{break}}, {{continue}}), errors throw and loop control is returned
// as a signal from walk().

export type TemplateFunc = (...args: unknown[]) => unknown;
export type MissingKey = 'error' | 'zero' | 'default';

/**
 * How deep {{template}} calls may nest. Go allows 100000 on its growable stacks; each level here
 * costs a dozen JS frames, and the default stack holds well under 1000 levels of a plain recursive
 * definition, so the limit stays far below that and leaves room for the caller's own frames.
 */
export const MAX_TEMPLATE_DEPTH = 100;

/**
 * How many `range` iterations one execution may run in all. Go has no such limit, but here a
 * render runs on the daemon's only thread, and `{{range .Event.count}}` over a number an outsider
 * chose (2e9) would stop it for minutes (decision 185).
 */
export const MAX_RANGE_ITERATIONS = 100_000;

export interface ExecConfig {
  readonly name: string;
  readonly source: string;
  readonly trees: ReadonlyMap<string, ListNode>;
  readonly funcs: ReadonlyMap<string, TemplateFunc>;
  readonly missingKey: MissingKey;
  readonly maxOutput: number | undefined;
}

/** Go's missingVal: "no value was piped in", distinct from a piped undefined. */
const MISSING: unique symbol = Symbol('missing');
type Final = unknown;

const NONE = 0;
const BREAK = 1;
const CONTINUE = 2;
type Signal = typeof NONE | typeof BREAK | typeof CONTINUE;

interface Variable {
  readonly name: string;
  value: unknown;
}

type AtNode = Node | ArgNode | CommandNode;

class State {
  out = '';
  node: AtNode | null = null;
  vars: Variable[];
  executing: string;
  depth = 0;
  iterations = 0;

  constructor(
    private readonly cfg: ExecConfig,
    data: unknown,
  ) {
    this.vars = [{ name: '$', value: data }];
    this.executing = cfg.name;
  }

  at(node: AtNode): void {
    this.node = node;
  }

  failure(detail: string): TemplateError {
    const n = this.node;
    const at =
      n === null ? null : { offset: n.pos, context: nodeString(n), executing: this.executing };
    return execError(this.cfg.name, this.cfg.source, at, detail);
  }

  fail(detail: string): never {
    throw this.failure(detail);
  }

  write(s: string): void {
    const max = this.cfg.maxOutput;
    if (max !== undefined && this.out.length + s.length > max) {
      this.fail(`output exceeds the limit of ${max} characters`);
    }
    this.out += s;
  }

  // Variables: a stack, marked and popped like Go's so scoping matches exactly.
  varValue(name: string): unknown {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i]!.name === name) return this.vars[i]!.value;
    }
    return this.fail(`undefined variable: ${name}`);
  }
  setVar(name: string, value: unknown): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i]!.name === name) {
        this.vars[i]!.value = value;
        return;
      }
    }
    this.fail(`undefined variable: ${name}`);
  }
  setTopVar(n: number, value: unknown): void {
    this.vars[this.vars.length - n]!.value = value;
  }

  walk(dot: unknown, node: Node): Signal {
    this.at(node);
    switch (node.kind) {
      case 'action': {
        const val = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return NONE;
      }
      case 'break':
        return BREAK;
      case 'continue':
        return CONTINUE;
      case 'if':
      case 'with':
        return this.walkIfOrWith(dot, node);
      case 'list':
        for (const n of node.nodes) {
          const signal = this.walk(dot, n);
          if (signal !== NONE) return signal;
        }
        return NONE;
      case 'range':
        return this.walkRange(dot, node);
      case 'template':
        this.walkTemplate(dot, node);
        return NONE;
      case 'text':
        this.write(node.text);
        return NONE;
    }
  }

  walkIfOrWith(dot: unknown, node: IfNode): Signal {
    const mark = this.vars.length;
    const val = this.evalPipeline(dot, node.pipe);
    let signal: Signal = NONE;
    if (isTrue(val)) signal = this.walk(node.kind === 'with' ? val : dot, node.list);
    else if (node.elseList) signal = this.walk(dot, node.elseList);
    this.vars.length = mark;
    return signal;
  }

  walkRange(dot: unknown, r: RangeNode): Signal {
    this.at(r);
    const outer = this.vars.length;
    const val = this.evalPipeline(dot, r.pipe);
    const mark = this.vars.length;
    const { decl, isAssign } = r.pipe;
    const oneIteration = (index: unknown, elem: unknown): boolean => {
      if (++this.iterations > MAX_RANGE_ITERATIONS) {
        this.at(r);
        this.fail(`range ran over the limit of ${MAX_RANGE_ITERATIONS} iterations`);
      }
      if (decl.length > 0) {
        if (isAssign) this.setVar(decl[0]!.ident[0]!, decl.length > 1 ? index : elem);
        else this.setTopVar(1, elem);
      }
      if (decl.length > 1) {
        if (isAssign) this.setVar(decl[1]!.ident[0]!, elem);
        else this.setTopVar(2, index);
      }
      const signal = this.walk(elem, r.list);
      this.vars.length = mark;
      return signal === BREAK;
    };
    let ran = false;
    if (Array.isArray(val)) {
      ran = val.length > 0;
      for (let i = 0; i < val.length; i++) if (oneIteration(i, val[i])) break;
    } else if (isInt(val)) {
      if (decl.length > 1) this.fail(`can't use ${val} to iterate over more than one variable`);
      ran = val > 0;
      for (let i = 0; i < val; i++) if (oneIteration(undefined, i)) break;
    } else if (isMap(val)) {
      const keys = sortedKeys(val);
      ran = keys.length > 0;
      // Keys someone else wrote stay theirs: `{{$k}}` prints through the map's key printer.
      const kp = keyPrinterOf(val);
      for (const k of keys) if (oneIteration(kp ? taint(k, kp) : k, val[k])) break;
    } else if (val !== undefined) {
      this.fail(`range can't iterate over ${formatValue(val)}`);
    }
    let signal: Signal = NONE;
    if (!ran && r.elseList) {
      // Go recovers {{break}} around the whole range, else list included, so a break there
      // only ends this range; {{continue}} still reaches the enclosing loop.
      signal = this.walk(dot, r.elseList);
      if (signal === BREAK) signal = NONE;
    }
    this.vars.length = outer;
    return signal;
  }

  walkTemplate(dot: unknown, t: TemplateNode): void {
    this.at(t);
    const tree = this.cfg.trees.get(t.name);
    if (tree === undefined) this.fail(`template ${quote(t.name)} not defined`);
    if (this.depth >= MAX_TEMPLATE_DEPTH) {
      this.fail(`exceeded maximum template depth (${MAX_TEMPLATE_DEPTH})`);
    }
    const newDot = t.pipe ? this.evalPipeline(dot, t.pipe) : undefined;
    const { vars, executing } = this;
    // No dynamic scoping: the called template sees only $.
    this.vars = [{ name: '$', value: newDot }];
    this.executing = t.name;
    this.depth++;
    this.walk(newDot, tree);
    this.depth--;
    this.vars = vars;
    this.executing = executing;
  }

  printValue(node: Node, value: unknown): void {
    this.at(node);
    const t = findTaint(value);
    if (t) {
      const plain = deepUnwrap(value);
      this.write(t.printer(typeof plain === 'string' ? plain : formatValue(plain)));
      return;
    }
    const v = value;
    if (v === undefined || v === null) this.write('<no value>');
    else if (typeof v === 'function')
      this.fail(`can't print ${nodeString(node)} of type ${goType(v)}`);
    else this.write(formatValue(v));
  }

  evalPipeline(dot: unknown, pipe: PipeNode): unknown {
    this.at(pipe);
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value);
      // Go unwraps a nil interface{} to "no value" between stages.
      if (value === null) value = undefined;
    }
    for (const v of pipe.decl) {
      if (pipe.isAssign) this.setVar(v.ident[0]!, value);
      else this.vars.push({ name: v.ident[0]!, value });
    }
    return value;
  }

  notAFunction(args: readonly ArgNode[], final: Final): void {
    if (args.length > 1 || final !== MISSING) {
      this.fail(`can't give argument to non-function ${nodeString(args[0]!)}`);
    }
  }

  evalCommand(dot: unknown, cmd: CommandNode, final: Final): unknown {
    const first = cmd.args[0]!;
    switch (first.kind) {
      case 'field':
        return this.evalFieldNode(dot, first, cmd.args, final);
      case 'chain':
        return this.evalChainNode(dot, first, cmd.args, final);
      case 'identifier':
        return this.evalFunction(dot, first, cmd, cmd.args, final);
      case 'pipe':
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case 'variable':
        return this.evalVariableNode(first, cmd.args, final);
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.kind) {
      case 'bool':
        return first.value;
      case 'dot':
        return dot;
      case 'nil':
        return this.fail('nil is not a command');
      case 'number':
        return this.idealConstant(first);
      case 'string':
        return first.text;
    }
  }

  idealConstant(n: NumberNode): number {
    this.at(n);
    if (n.overflows) this.fail(`${n.text} overflows int`);
    return n.value;
  }

  evalFieldNode(dot: unknown, field: FieldNode, args: readonly ArgNode[] | null, final: Final) {
    this.at(field);
    return this.evalFieldChain(dot, field.ident, args, final);
  }

  evalChainNode(dot: unknown, chain: ChainNode, args: readonly ArgNode[] | null, final: Final) {
    this.at(chain);
    const receiver = this.evalArg(dot, chain.node, 'any');
    this.at(chain);
    return this.evalFieldChain(receiver, chain.fields, args, final);
  }

  evalVariableNode(v: VariableNode, args: readonly ArgNode[] | null, final: Final) {
    this.at(v);
    const value = this.varValue(v.ident[0]!);
    if (v.ident.length === 1) {
      this.notAFunction(args ?? [v], final);
      return value;
    }
    return this.evalFieldChain(value, v.ident.slice(1), args, final);
  }

  evalFieldChain(
    receiver: unknown,
    ident: readonly string[],
    args: readonly ArgNode[] | null,
    final: Final,
  ): unknown {
    let r = receiver;
    const last = ident.length - 1;
    for (let i = 0; i < last; i++) r = this.evalField(ident[i]!, null, MISSING, r);
    return this.evalField(ident[last]!, args, final, r);
  }

  evalField(name: string, args: readonly ArgNode[] | null, final: Final, receiver: unknown) {
    if (receiver === undefined) {
      if (this.cfg.missingKey === 'error') this.fail(`nil data; no entry for key ${quote(name)}`);
      return undefined;
    }
    if (receiver === null) this.fail(`nil pointer evaluating interface {}.${name}`);
    if (isMap(receiver)) {
      if ((args !== null && args.length > 1) || final !== MISSING) {
        this.fail(`${name} is not a method but has arguments`);
      }
      if (hasKey(receiver, name)) return receiver[name];
      if (this.cfg.missingKey === 'zero') return '';
      if (this.cfg.missingKey === 'default') return undefined;
      this.fail(`map has no entry for key ${quote(name)}`);
    }
    return this.fail(`can't evaluate field ${name} in type ${goType(receiver)}`);
  }

  evalFunction(
    dot: unknown,
    node: IdentifierNode,
    cmd: AtNode,
    args: readonly ArgNode[] | null,
    final: Final,
  ): unknown {
    this.at(node);
    const name = node.name;
    const argNodes = args === null ? [] : args.slice(1);
    const user = this.cfg.funcs.get(name);
    if (user !== undefined) {
      const argv = argNodes.map((a) => this.evalArg(dot, a, 'any'));
      if (final !== MISSING) argv.push(final);
      return this.callTainted(cmd, name, argv, (plain) => user(...plain));
    }
    const builtin = BUILTINS.get(name);
    if (builtin === undefined) return this.fail(`${quote(name)} is not a defined function`);
    return this.evalBuiltin(dot, builtin, cmd, name, argNodes, final);
  }

  evalBuiltin(
    dot: unknown,
    fn: Builtin,
    cmd: AtNode,
    name: string,
    argNodes: readonly ArgNode[],
    final: Final,
  ): unknown {
    const numIn = argNodes.length + (final === MISSING ? 0 : 1);
    if (fn.variadic && numIn < fn.fixed) {
      this.fail(
        `wrong number of args for ${name}: want at least ${fn.fixed} got ${argNodes.length}`,
      );
    }
    if (!fn.variadic && numIn !== fn.fixed) {
      this.fail(`wrong number of args for ${name}: want ${fn.fixed} got ${numIn}`);
    }
    if (name === 'and' || name === 'or') {
      let v: unknown;
      for (const a of argNodes) {
        v = this.evalArg(dot, a, 'any');
        if (isTrue(v) === (name === 'or')) return v;
      }
      return final === MISSING ? v : final;
    }
    const param = (i: number): ParamType => fn.params?.[i] ?? 'any';
    const argv = argNodes.map((a, i) => this.evalArg(dot, a, param(i)));
    if (final !== MISSING) argv.push(this.validateType(final, param(argv.length)));
    // call reports its callee by how the template spelled it.
    if (name === 'call') argv.unshift(argNodes[0] ? nodeString(argNodes[0]) : String(final));
    return this.callTainted(cmd, name, argv, (plain) => fn.impl(plain));
  }

  /**
   * Calls a function on plain values. A tainted argument taints the result: a string whole, a
   * list or map (`index`, `slice` handing back part of one) in every string and key it holds.
   */
  callTainted(
    cmd: AtNode,
    name: string,
    argv: unknown[],
    invoke: (plain: unknown[]) => unknown,
  ): unknown {
    const t = argv.map((a) => findTaint(a)).find((x) => x !== null) ?? null;
    const plain = t ? argv.map((a) => deepUnwrap(a)) : argv;
    const result = this.call(cmd, name, () => invoke(plain));
    if (!t) return result;
    if (typeof result === 'string') return taint(result, t.printer);
    if (typeof result === 'object' && result !== null)
      return taintTree(result, { printer: t.printer });
    return result;
  }

  call(cmd: AtNode, name: string, invoke: () => unknown): unknown {
    let result: unknown;
    try {
      result = invoke();
    } catch (e) {
      this.at(cmd);
      const reason = e instanceof Error ? e.message : String(e);
      this.fail(`error calling ${name}: ${reason}`);
    }
    if (typeof (result as { then?: unknown } | null)?.then === 'function') {
      this.at(cmd);
      this.fail(
        `error calling ${name}: returned a Promise; template functions must be synchronous`,
      );
    }
    return result;
  }

  evalArg(dot: unknown, n: ArgNode, type: ParamType): unknown {
    this.at(n);
    switch (n.kind) {
      case 'dot':
        return this.validateType(dot, type);
      case 'nil':
        if (type === 'string') this.fail('cannot assign nil to string');
        return null;
      case 'field':
        return this.validateType(this.evalFieldNode(dot, n, [n], MISSING), type);
      case 'variable':
        return this.validateType(this.evalVariableNode(n, null, MISSING), type);
      case 'pipe':
        return this.validateType(this.evalPipeline(dot, n), type);
      case 'identifier':
        return this.validateType(this.evalFunction(dot, n, n, null, MISSING), type);
      case 'chain':
        return this.validateType(this.evalChainNode(dot, n, null, MISSING), type);
      case 'string':
        return n.text;
      case 'bool':
      case 'number':
        if (type === 'string') this.fail(`expected string; found ${nodeString(n)}`);
        return n.kind === 'bool' ? n.value : this.idealConstant(n);
    }
  }

  validateType(v: unknown, type: ParamType): unknown {
    if (type === 'any' || typeof unwrap(v) === 'string') return v;
    if (v === undefined) this.fail('invalid value; expected string');
    const got = v === null ? 'interface {}' : goType(v);
    return this.fail(`wrong type for value; expected string; got ${got}`);
  }
}

/** Runs the main tree of a parsed template. Throws TemplateError (kind 'exec'). */
export function execute(cfg: ExecConfig, data: unknown): string {
  const root = cfg.trees.get(cfg.name);
  // Go's Execute(nil) starts from an invalid value, not a nil interface.
  const state = new State(cfg, data === null ? undefined : data);
  try {
    if (root === undefined)
      throw state.failure(`${quote(cfg.name)} is an incomplete or empty template`);
    state.walk(state.vars[0]!.value, root);
  } catch (e) {
    if (isTemplateError(e)) throw e;
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      throw state.failure('template nesting too deep (stack overflow)');
    }
    throw e;
  }
  return state.out;
}
