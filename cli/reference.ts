/** The CLI reference (docs/cli.md), generated from the command definitions; a test keeps it current. */
import { EXIT } from './exit-codes.js';
import { commands } from './index.js';

export function cliReference(): string {
  const lines = [
    '# Command-line reference',
    '',
    '<!-- Generated from the command definitions in cli/ by `npm run docs`; a test fails when it drifts. -->',
    '',
    '`svc` is a client of the daemon’s HTTP API: it finds the daemon through',
    '`{data_dir}/daemon.json` and `{data_dir}/token` (`$SVC_DATA_DIR`, else `$XDG_DATA_HOME/svc`, else',
    '`~/.local/share/svc`). From a checkout, `npm run --silent svc -- <args>` runs it.',
    '',
    '## Exit codes',
    '',
    '| code | meaning |',
    '|---|---|',
    ...Object.entries(EXIT).map(([name, code]) => `| ${code} | ${name.replace(/_/g, ' ')} |`),
    '',
    'A usage error (2) comes before the daemon is asked anything: an unknown option, a missing',
    'value, or more arguments than the command’s usage line names (`svc task approve 1 2` approves',
    'nothing and names the `"2"` it refused).',
    '',
    '## Commands',
    '',
  ];
  for (const c of commands) {
    lines.push(`### \`svc ${c.name}\``, '', c.summary, '');
    if (c.usage) lines.push('```', c.usage, '```', '');
    const opts = Object.entries(c.options ?? {});
    if (opts.length > 0) {
      lines.push('| option | meaning |', '|---|---|');
      for (const [k, v] of opts)
        lines.push(`| \`--${k}${v.type === 'string' ? ' <value>' : ''}\` | ${v.description} |`);
      lines.push('');
    }
  }
  return lines.join('\n');
}
