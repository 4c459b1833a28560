/**
 * The terminal board against a real test daemon: `buildTestApp()` listening on a loopback port,
 * a real `Client`, and the App rendered by ink-testing-library with keys written to its stdin
 * as a terminal would send them.
 */
import type { AddressInfo } from 'node:net';
import { render } from 'ink-testing-library';
import { onTestFinished } from 'vitest';
import { Client } from '../../cli/client.js';
import { TuiApi } from '../../cli/tui/api.js';
import { App, type AppProps } from '../../cli/tui/components/App.js';
import { buildTestApp, type TestApp, type TestAppOptions, waitFor } from './app.js';

export async function listeningApp(
  opts: TestAppOptions = {},
): Promise<{ t: TestApp; client: Client }> {
  const t = await buildTestApp(opts);
  await t.kernel.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.kernel.app.server.address() as AddressInfo;
  return { t, client: new Client({ baseUrl: `http://127.0.0.1:${port}`, token: t.token }) };
}

/** Terminal byte sequences for the keys tests press. */
export const KEY = {
  enter: '\r',
  escape: '\u001b',
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
  home: '\u001b[H',
  end: '\u001b[F',
  pageup: '\u001b[5~',
  pagedown: '\u001b[6~',
  tab: '\t',
  backspace: '\u007f',
  space: ' ',
  'ctrl+s': '\u0013',
  'ctrl+r': '\u0012',
  'ctrl+c': '\u0003',
} as const;

export interface Board {
  frame(): string;
  /** Writes keys one by one (names from KEY, or literal text), pausing so each is its own read. */
  press(...keys: string[]): Promise<void>;
  /** Waits until the frame matches (text, regex or predicate); returns the frame. */
  until(match: string | RegExp | ((frame: string) => boolean), timeoutMs?: number): Promise<string>;
  /** Moves the selection to task `id` (the board's selected row starts with `›`). */
  select(id: number): Promise<void>;
  unmount(): void;
}

/** The selected row of a board frame. */
export function selectedLine(frame: string): string {
  return frame.split('\n').find((l) => l.startsWith('›')) ?? '';
}

export function renderBoard(client: Client, props: Partial<AppProps> = {}): Board {
  const r = render(
    <App
      api={new TuiApi(client)}
      tickMs={0}
      agentsPollMs={0}
      settleMs={20}
      previewMs={20}
      {...props}
    />,
  );
  let gone = false;
  const unmount = () => {
    if (gone) return;
    gone = true;
    r.unmount();
  };
  onTestFinished(unmount);
  const frame = () => r.lastFrame() ?? '';
  return {
    frame,
    unmount,
    async press(...keys) {
      for (const k of keys) {
        r.stdin.write(k in KEY ? KEY[k as keyof typeof KEY] : k);
        await new Promise((res) => setTimeout(res, 25));
      }
    },
    async select(id) {
      await this.until(`#${id} `);
      await this.press('home');
      for (let i = 0; i < 50; i++) {
        if (new RegExp(`#${id}\\s`).test(selectedLine(frame()))) return;
        await this.press('down');
      }
      throw new Error(`could not select #${id}; last frame:\n${frame()}`);
    },
    async until(match, timeoutMs = 10_000) {
      const ok =
        typeof match === 'string'
          ? (f: string) => f.includes(match)
          : match instanceof RegExp
            ? (f: string) => match.test(f)
            : match;
      try {
        return await waitFor(() => (ok(frame()) ? frame() : null), timeoutMs);
      } catch {
        throw new Error(`the board never showed ${String(match)}; last frame:\n${frame()}`);
      }
    },
  };
}
