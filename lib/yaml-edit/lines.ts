/**
 * Line arithmetic over the file's own text. Every edit the editor makes is a splice expressed in
 * these terms, so the bytes outside it are untouched by construction.
 */
export type Eol = '\n' | '\r\n';

export interface Line {
  start: number;
  /** End of the line's content, before its line break. */
  contentEnd: number;
  /** Start of the next line, or the text length when this line has no line break. */
  end: number;
}

/** The file's line break, taken from its first line so new lines match the old ones. */
export function detectEol(text: string): Eol {
  const nl = text.indexOf('\n');
  return nl > 0 && text[nl - 1] === '\r' ? '\r\n' : '\n';
}

export class LineTable {
  readonly lines: Line[] = [];

  constructor(readonly text: string) {
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl === -1) {
        this.lines.push({ start, contentEnd: text.length, end: text.length });
        break;
      }
      const contentEnd = nl > start && text[nl - 1] === '\r' ? nl - 1 : nl;
      this.lines.push({ start, contentEnd, end: nl + 1 });
      start = nl + 1;
      if (start === text.length) break;
    }
  }

  /** The line holding `offset`; an offset at a line's break belongs to that line. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lines[mid]!.start <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  line(index: number): Line {
    return this.lines[index]!;
  }

  content(index: number): string {
    const line = this.line(index);
    return this.text.slice(line.start, line.contentEnd);
  }

  column(offset: number): number {
    return offset - this.line(this.lineOf(offset)).start;
  }

  hasBreak(index: number): boolean {
    const line = this.line(index);
    return line.end > line.contentEnd;
  }
}

export interface Splice {
  start: number;
  end: number;
  text: string;
}

export function applySplice(text: string, splice: Splice): string {
  return text.slice(0, splice.start) + splice.text + text.slice(splice.end);
}

/** New lines placed after line `index`, keeping a final line without a break without one. */
export function insertLinesAfter(
  table: LineTable,
  index: number,
  lines: string[],
  eol: Eol,
): Splice {
  const line = table.line(index);
  if (table.hasBreak(index)) return { start: line.end, end: line.end, text: lines.join(eol) + eol };
  return { start: line.end, end: line.end, text: eol + lines.join(eol) };
}

export function insertLinesBefore(
  table: LineTable,
  index: number,
  lines: string[],
  eol: Eol,
): Splice {
  const at = table.line(index).start;
  return { start: at, end: at, text: lines.join(eol) + eol };
}

/** Drops lines `first..last` whole, so neighbouring lines keep every byte. */
export function removeLines(table: LineTable, first: number, last: number): Splice {
  const from = table.line(first);
  const to = table.line(last);
  if (table.hasBreak(last) || first === 0) return { start: from.start, end: to.end, text: '' };
  // The last line has no break: take the break before `first` instead, so no break is added.
  return { start: table.line(first - 1).contentEnd, end: to.end, text: '' };
}

export function isBlankOrComment(content: string): boolean {
  const trimmed = content.trimStart();
  return trimmed === '' || trimmed.startsWith('#');
}

export function indentOf(content: string): number {
  return content.length - content.trimStart().length;
}
