import { isCollection, isMap, isSeq, type ParsedNode } from 'yaml';
import {
  appendPair,
  headCommentStart,
  insertItemLines,
  renderSequenceItem,
} from './add-entries.js';
import { rejoinCompact, splitCompact } from './compact-split.js';
import { type BlockCollection, type Entry, entriesOf, isNullish } from './entries.js';
import { EditFailure } from './finding.js';
import { formatPath, type PathSegment } from './path.js';
import { linesOf, removeEntryLines } from './remove-entries.js';
import { appendToEmptyDocument, replaceRoot, replaceSlot } from './replace-value.js';
import { aliasesWithin, anchorsWithin, containsAlias, type SourceDoc } from './source-doc.js';
import { getAt, type Tree } from './tree.js';
import type { PlannedOp } from './tree-ops.js';
import type { Layout, RenderOptions } from './value-render.js';
import { blockAt, indexOfKey, internal, type Located, reparse, walk } from './walk.js';

/**
 * Produces the new text for one op that applyOpToTree has already judged valid; `expected` is
 * that judgement's result and supplies every value the text needs to show. `layout` is how the
 * file indents, read once from the original so a long op list does not drift from it.
 */
export function editText(source: SourceDoc, op: PlannedOp, expected: Tree, layout: Layout): string {
  const editor = new Editor(source, expected, layout);
  switch (op.op) {
    case 'set':
      return editor.set(op.path, op.block);
    case 'insert':
      return editor.insert(op.path);
    case 'remove':
      return editor.remove(op.path);
    case 'move':
      return editor.move(op.path, op.to);
  }
}

class Editor {
  constructor(
    private readonly source: SourceDoc,
    private readonly expected: Tree,
    private readonly layout: Layout,
  ) {}

  set(path: PathSegment[], block: boolean): string {
    const chain = walk(this.source, path);
    if (chain.length - 1 === path.length) {
      const target = chain[chain.length - 1]!;
      const flow = this.flowFallback(chain.slice(0, -1));
      if (flow !== undefined) return flow;
      this.guardAncestors(chain.slice(0, -1));
      this.guardDropped(target.node);
      return this.replace(target, { layout: this.layout, blockAt: block ? [] : undefined });
    }
    return this.create(chain, path, block ? path : undefined);
  }

  insert(path: PathSegment[]): string {
    const seqPath = path.slice(0, -1);
    const index = path[path.length - 1] as number;
    const chain = walk(this.source, seqPath);
    const last = chain[chain.length - 1]!;
    if (chain.length - 1 < seqPath.length || isNullish(last.node)) {
      return this.create(chain, seqPath, undefined);
    }
    const flow = this.flowFallback(chain);
    if (flow !== undefined) return flow;
    this.guardAncestors(chain);
    const value = getAt(this.expected, path)!;
    return this.withCompactSplit(seqPath, index === 0, (source) => {
      const { seq, entries, floor } = this.sequenceAt(source, seqPath);
      const lines = renderSequenceItem(source, entries, value, { layout: this.layout });
      return insertItemLines(source, seq, index, lines, floor);
    });
  }

  remove(path: PathSegment[]): string {
    const chain = walk(this.source, path);
    const complete = chain.length - 1 === path.length;
    const flow = this.flowFallback(complete ? chain.slice(0, -1) : chain);
    if (flow !== undefined) return flow;
    if (!complete) throw internal(`${formatPath(path)} was not found`);
    const containerChain = chain.slice(0, -1);
    this.guardAncestors(containerChain);
    const target = chain[chain.length - 1]!;
    this.guardDropped(target.node);
    const container = containerChain[containerChain.length - 1]!;
    const collection = container.node as BlockCollection;
    if (collection.items.length === 1) {
      // The last entry goes: leave `{}` or `[]` so the value is still a mapping or sequence.
      return this.replace(container, { layout: this.layout });
    }
    const index = path[path.length - 1]!;
    const position = typeof index === 'number' ? index : indexOfKey(collection, index);
    return this.withCompactSplit(container.path, position === 0, (source) => {
      const entries = entriesOf(source, blockAt(source, container.path));
      return removeEntryLines(source, entries[position]!);
    });
  }

  move(path: PathSegment[], to: number): string {
    const seqPath = path.slice(0, -1);
    const from = path[path.length - 1] as number;
    const chain = walk(this.source, seqPath);
    const flow = this.flowFallback(chain);
    if (flow !== undefined) return flow;
    this.guardAncestors(chain);
    if (from === to) return this.source.text;
    this.guardReorder(chain[chain.length - 1]!.node as BlockCollection, from, to, path);
    return this.withCompactSplit(seqPath, from === 0 || to === 0, (source) => {
      const { entries, floor } = this.sequenceAt(source, seqPath);
      const moving = entries[from]!;
      // The comments written directly above an item travel with it.
      const first = headCommentStart(source, entries, from, floor);
      const lines = linesOf(source, first, moving.lastLine);
      const without = reparse(removeEntryLines(source, moving, first));
      const after = this.sequenceAt(without, seqPath);
      // Moving down lands right after the item it passes, moving up right before the comments
      // of the item it passes, so blank lines and comments between other items stay put.
      return insertItemLines(without, after.seq, to, lines, after.floor, from < to);
    });
  }

  /** Makes `targetPath` (missing, or holding null) exist with its expected value. */
  private create(
    chain: Located[],
    targetPath: PathSegment[],
    blockPath: PathSegment[] | undefined,
  ) {
    const deepest = chain[chain.length - 1]!;
    const depth = chain.length - 1;
    const flow = this.flowFallback(chain);
    if (flow !== undefined) return flow;
    this.guardAncestors(chain);
    const blockFrom = (d: number) => (blockPath === undefined ? undefined : blockPath.slice(d));
    if (isNullish(deepest.node)) {
      const value = getAt(this.expected, deepest.path)!;
      const options: RenderOptions = { layout: this.layout, blockAt: blockFrom(depth) };
      if (deepest.slot.kind === 'root') {
        return deepest.node === null
          ? appendToEmptyDocument(this.source, value, options)
          : replaceRoot(this.source, value, options);
      }
      return this.replace(deepest, options);
    }
    const node = deepest.node;
    const segment = targetPath[depth]!;
    const value = getAt(this.expected, targetPath.slice(0, depth + 1))!;
    const options: RenderOptions = { layout: this.layout, blockAt: blockFrom(depth + 1) };
    if (isMap(node) && typeof segment === 'string') {
      return appendPair(this.source, node as BlockCollection, segment, value, options);
    }
    if (isSeq(node) && typeof segment === 'number') {
      const entries = entriesOf(this.source, node as BlockCollection);
      const lines = renderSequenceItem(this.source, entries, value, options);
      return insertItemLines(this.source, node as BlockCollection, segment, lines, undefined);
    }
    throw internal(`cannot create ${formatPath(targetPath)}`);
  }

  private replace(target: Located, options: RenderOptions): string {
    const value = getAt(this.expected, target.path)!;
    if (target.slot.kind === 'root') return replaceRoot(this.source, value, options);
    return replaceSlot(this.source, target.slot.entry, target.slot.owner, value, options);
  }

  /**
   * An edit inside a flow collection (`[a, b]`, `{a: 1}`) re-renders the outermost flow node on
   * the path in one piece. An empty one (`{}` left by removing the last key) becomes block style.
   */
  private flowFallback(chain: Located[]): string | undefined {
    const outer = chain.find((l) => isCollection(l.node) && l.node.flow);
    if (outer === undefined) return undefined;
    const node = outer.node as BlockCollection;
    this.guardAncestors(chain.slice(0, chain.indexOf(outer)));
    if (containsAlias(node)) {
      throw new EditFailure('aliased_node', `${formatPath(outer.path)} holds an alias`);
    }
    this.guardDropped(node);
    return this.replace(outer, { layout: this.layout, flow: node.items.length > 0 });
  }

  /** Editing inside a node that an alias copies would silently change the copy too. */
  private guardAncestors(chain: Located[]): void {
    for (const located of chain) {
      const node = located.node;
      if (node && 'anchor' in node && node.anchor && this.source.anchorsInUse.has(node.anchor)) {
        throw new EditFailure(
          'aliased_node',
          `${formatPath(located.path) || 'the root'} is anchored as &${node.anchor} and an alias refers to it`,
        );
      }
    }
  }

  /**
   * An alias must come after its anchor, and refers to the nearest one before it: refuse a move
   * that passes an item over another when one defines an anchor the other defines or uses.
   */
  private guardReorder(seq: BlockCollection, from: number, to: number, path: PathSegment[]) {
    const moving = seq.items[from] as ParsedNode;
    const defines = new Set(anchorsWithin(moving));
    const uses = new Set(aliasesWithin(moving));
    for (let i = Math.min(from, to); i <= Math.max(from, to); i++) {
      if (i === from) continue;
      const passed = seq.items[i] as ParsedNode;
      const clash =
        anchorsWithin(passed).some((name) => defines.has(name) || uses.has(name)) ||
        aliasesWithin(passed).some((name) => defines.has(name));
      if (clash) {
        throw new EditFailure(
          'anchor_in_use',
          `moving ${formatPath(path)} would reorder an anchor and an alias to it`,
        );
      }
    }
  }

  /** Text that goes away must not take an anchor some alias still refers to. */
  private guardDropped(node: ParsedNode | null): void {
    const used = anchorsWithin(node).find((a) => this.source.anchorsInUse.has(a));
    if (used !== undefined) {
      throw new EditFailure('anchor_in_use', `the anchor &${used} is referred to elsewhere`);
    }
  }

  private sequenceAt(source: SourceDoc, path: PathSegment[]) {
    const chain = walk(source, path);
    const seq = blockAt(source, path);
    const slot = chain[chain.length - 1]!.slot;
    const floor = slot.kind === 'entry' ? source.table.lineOf(slot.entry.slotStart) : undefined;
    return { seq, entries: entriesOf(source, seq), floor };
  }

  /**
   * Edits that touch the first entry of a compact collection (`- id: a` has its first key on
   * the dash's line) run on a copy with that entry moved to its own line, then put it back.
   */
  private withCompactSplit(
    path: PathSegment[],
    touchesFirst: boolean,
    run: (source: SourceDoc) => string,
  ): string {
    const entries = entriesOf(this.source, blockAt(this.source, path));
    const first: Entry | undefined = entries[0];
    if (!touchesFirst || first === undefined || !first.compact) return run(this.source);
    const split = splitCompact(this.source, first);
    return rejoinCompact(run(reparse(split.text)), split, this.source.eol);
  }
}
