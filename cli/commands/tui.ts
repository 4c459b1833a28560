/** `svc tui`: the terminal board (docs/tui.md). Loaded on demand so other commands never pay for React. */
import { importExternal } from '../../shared/host.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { importForTerminal } from '../tui/ink-tty.js';
import type * as Tui from '../tui/run.js';

type TuiModule = typeof Tui;

export const tuiCommand: Command = {
  name: 'tui',
  summary: 'Open the terminal board: tasks live, their steps and output, actions by key, new tasks',
  usage: 'svc tui',
  async run(ctx) {
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      ctx.err('svc tui: needs a terminal (stdin and stdout must be a TTY)');
      return EXIT.usage;
    }
    const client = ctx.client();
    // Fail fast, before the screen switches, when the daemon is not there.
    await client.get('/v1/health');
    // Through the host: the board (Ink, React) is not in the single-file build (decision 158), and
    // it makes its own Client so its error classes are the ones it checks against.
    const board = new URL('../tui/run.js', import.meta.url).href;
    const { runTui } = (await importForTerminal(() => importExternal(board))) as TuiModule;
    await runTui({ baseUrl: client.baseUrl, token: client.token });
    return EXIT.ok;
  },
};

export const tuiCommands: Command[] = [tuiCommand];
