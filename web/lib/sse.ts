/**
 * Server-sent events read from a `fetch` body (docs/events.md), not `EventSource`: the session
 * credential has to travel in a header, which EventSource cannot send (decision 240). Pure: the
 * parser takes text chunks and hands back whole frames.
 */

export interface Frame {
  id?: string;
  event?: string;
  data?: string;
}

export class SseParser {
  private buf = '';

  /** Frames completed by `chunk`; comments (`: heartbeat`) are dropped. */
  push(chunk: string): Frame[] {
    this.buf += chunk.replace(/\r\n?/g, '\n');
    const out: Frame[] = [];
    for (let i = this.buf.indexOf('\n\n'); i >= 0; i = this.buf.indexOf('\n\n')) {
      const block = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 2);
      const f: Frame = {};
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const at = line.indexOf(':');
        const key = at < 0 ? line : line.slice(0, at);
        const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
        if (key === 'data') f.data = f.data === undefined ? value : `${f.data}\n${value}`;
        else if (key === 'id' || key === 'event') f[key] = value;
      }
      if (f.event !== undefined || f.data !== undefined) out.push(f);
    }
    return out;
  }
}
