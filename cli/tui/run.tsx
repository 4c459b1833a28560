/**
 * Starts the board on the terminal: the alternate screen (so quitting gives the shell back as it
 * was), Ink rendering the App, and a promise that settles when the user quits (decision 140).
 */
import { render } from 'ink';
import { Client, type Connection } from '../client.js';
import { TuiApi } from './api.js';
import { App } from './components/App.js';

/** Takes the connection, not a Client: the caller may be another copy of the code (decision 158). */
export async function runTui(conn: Connection): Promise<void> {
  const client = new Client(conn);
  const out = process.stdout;
  out.write('\u001b[?1049h\u001b[H');
  try {
    const app = render(<App api={new TuiApi(client)} />, { exitOnCtrlC: true, patchConsole: true });
    await app.waitUntilExit();
  } finally {
    out.write('\u001b[?1049l');
  }
}
