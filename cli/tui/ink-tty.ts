/**
 * Ink decides once, when its module is first evaluated, whether it runs "in CI" (the `CI` or
 * `CONTINUOUS_INTEGRATION` variable set) and then draws nothing until the app exits. `svc tui`
 * only starts on a real terminal, so that guess is always wrong here: a developer whose shell
 * exports `CI` (devcontainers, CI debug shells, tmux under a CI job) would get a blank board.
 * Hide the two variables while Ink loads and put them back at once, so nothing else sees a change
 * (decision 149).
 */
const CI_VARIABLES = ['CI', 'CONTINUOUS_INTEGRATION'] as const;

export async function importForTerminal<T>(load: () => Promise<T>): Promise<T> {
  const saved = new Map<string, string>();
  for (const name of CI_VARIABLES) {
    const value = process.env[name];
    if (value !== undefined) {
      saved.set(name, value);
      delete process.env[name];
    }
  }
  try {
    return await load();
  } finally {
    for (const [name, value] of saved) process.env[name] = value;
  }
}
