/** Runs the `svc` CLI in-process against `env`, capturing what it prints and its exit code. */
import { main } from '../../cli/index.js';

export async function cli(env: NodeJS.ProcessEnv, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, env, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
