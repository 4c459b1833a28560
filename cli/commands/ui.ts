/**
 * `svc ui`: opens the web board signed in (docs/web.md, decision 240). The daemon issues a
 * single-use code valid 60 s; the link carries it after `#`, which a browser never sends to a
 * server or a referrer, and the page trades it for a session credential at once. The daemon token
 * itself never leaves this process.
 */
import { spawn } from 'node:child_process';
import type { Command, CommandContext } from '../command.js';
import { EXIT } from '../exit-codes.js';

/** The platform's "open this URL" program, with its arguments (argv only, never a shell). */
export function openerFor(platform: NodeJS.Platform, url: string): [string, string[]] {
  if (platform === 'darwin') return ['open', [url]];
  if (platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler', url]];
  return ['xdg-open', [url]];
}

/** Starts the opener and resolves whether it could be started; it is left to run on its own. */
function open(ctx: CommandContext, url: string): Promise<boolean> {
  const [cmd, args] = openerFor(process.platform, url);
  return new Promise((resolve) => {
    try {
      const child = spawn(cmd, args, { env: ctx.env, stdio: 'ignore', detached: true });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}

export const uiCommand: Command = {
  name: 'ui',
  summary: 'Open the web board in a browser, signed in with a single-use link (valid 60 seconds)',
  usage: 'svc ui [--no-open]',
  options: {
    'no-open': {
      type: 'boolean',
      description: 'print the sign-in link on one line and open nothing',
    },
  },
  async run(ctx) {
    const client = ctx.client();
    const { code } = await client.post<{ code: string; expires_at: string }>('/v1/ui/codes', {});
    const url = `${new URL('/ui/', client.baseUrl).href}#code=${code}`;
    if (ctx.options['no-open']) {
      ctx.out(url);
      return EXIT.ok;
    }
    const opened = await open(ctx, url);
    ctx.out(url);
    ctx.err(
      opened
        ? 'Opening the web board in your browser; the link signs in once, within 60 seconds.'
        : 'Could not start a browser here: open the link above yourself, within 60 seconds.',
    );
    return EXIT.ok;
  },
};

export const uiCommands: Command[] = [uiCommand];
