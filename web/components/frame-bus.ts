import type { Frame } from '../lib/sse.js';

/** The task view's one event stream, shared with the panes that read it (the output pane). */
export type FrameBus = { listen(fn: (f: Frame) => void): () => void };
