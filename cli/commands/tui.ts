/** `svc tui`: the terminal board (docs/tui.md). Loaded on demand so other commands never pay for React. */
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';

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
    const { importForTerminal } = await import('../tui/ink-tty.js');
    const { runTui } = await importForTerminal(() => import('../tui/run.js'));
    await runTui(client);
    return EXIT.ok;
  },
};

export const tuiCommands: Command[] = [tuiCommand];
