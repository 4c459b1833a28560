/** One step of an edit path: a mapping key or a sequence index. */
export type PathSegment = string | number;

export class PathSyntaxError extends Error {
  constructor(
    readonly path: string,
    readonly at: number,
    detail: string,
  ) {
    super(`bad path "${path}" at ${at}: ${detail}`);
    this.name = 'PathSyntaxError';
  }
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;
const BARE_KEY_CHAR = /[A-Za-z0-9_-]/;

/**
 * Parses `steps[2].lanes[0].merge.on_conflict`. Bare keys are `[A-Za-z0-9_-]+`; any other key is
 * written bracket-quoted as a JSON string (`["weird key"]`). The empty string names the root.
 */
export function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let i = 0;
  const fail = (detail: string): never => {
    throw new PathSyntaxError(path, i, detail);
  };
  const readBare = (): string => {
    const from = i;
    while (i < path.length && BARE_KEY_CHAR.test(path[i]!)) i++;
    if (i === from) fail('expected a key');
    return path.slice(from, i);
  };
  while (i < path.length) {
    const ch = path[i];
    if (ch === '[') {
      i++;
      if (path[i] === '"') {
        segments.push(readQuotedKey());
      } else {
        const digits = /^(0|[1-9][0-9]*)/.exec(path.slice(i));
        if (!digits) fail('expected an index or a quoted key');
        const text = digits![1]!;
        i += text.length;
        const index = Number(text);
        if (!Number.isSafeInteger(index)) fail('index too large');
        segments.push(index);
      }
      if (path[i] !== ']') fail('expected ]');
      i++;
    } else if (ch === '.') {
      if (segments.length === 0) fail('a path cannot start with "."');
      i++;
      segments.push(readBare());
    } else if (segments.length === 0) {
      segments.push(readBare());
    } else {
      fail('expected ".", or "["');
    }
  }
  return segments;

  function readQuotedKey(): string {
    // Find the closing quote honouring backslash escapes, then let JSON decode the escapes.
    let j = i + 1;
    while (j < path.length && path[j] !== '"') j += path[j] === '\\' ? 2 : 1;
    if (j >= path.length) fail('unterminated quoted key');
    try {
      const key: unknown = JSON.parse(path.slice(i, j + 1));
      i = j + 1;
      return key as string;
    } catch {
      return fail('bad escape in quoted key');
    }
  }
}

/** The inverse of parsePath: bare keys where the grammar allows them, bracket-quoted otherwise. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (BARE_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
