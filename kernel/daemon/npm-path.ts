/**
 * The PATH a daemon started by an npm script runs with (decision 200). `npm start` (and
 * `npm run svc -- daemon start`) put `node_modules/.bin` of the package npm ran in, and of every
 * folder above it, plus npm's own `node-gyp-bin`, in front of the PATH it was given; a daemon
 * that kept them resolved agent CLIs from whatever those folders hold instead of the ones the
 * user installed, so the two documented ways to start gave different agents. The daemon takes that
 * prefix off once, at start, so agents, steps and every other child see the shell's PATH.
 */
import { delimiter, dirname, resolve } from 'node:path';

const NODE_GYP_BIN = /[\\/]@npmcli[\\/]run-script[\\/]lib[\\/]node-gyp-bin[\\/]?$/;

/** `node_modules/.bin` of `dir` and of every folder above it, as npm's run-script adds them. */
function binChain(dir: string): Set<string> {
  const out = new Set<string>();
  let p = resolve(dir);
  for (;;) {
    out.add(resolve(p, 'node_modules', '.bin'));
    const up = dirname(p);
    if (up === p) return out;
    p = up;
  }
}

export interface NpmPathResult {
  /** The PATH to run with. */
  path: string;
  /** The entries taken off (empty when the daemon was not started by an npm script). */
  removed: string[];
}

/**
 * `env.PATH` without the entries an npm script put in front of it. Only the leading run of them is
 * taken (npm prepends; nested npm scripts prepend again): the same folder further on is one the
 * user's own PATH names, and stays.
 */
export function pathWithoutNpmPrefix(env: NodeJS.ProcessEnv): NpmPathResult {
  const path = env.PATH ?? '';
  const pkg = env.npm_package_json;
  if (!pkg) return { path, removed: [] };
  const added = binChain(dirname(pkg));
  const entries = path.split(delimiter);
  let at = 0;
  while (at < entries.length) {
    const e = entries[at] as string;
    if (e === '' || !(added.has(resolve(e)) || NODE_GYP_BIN.test(e))) break;
    at++;
  }
  return { path: entries.slice(at).join(delimiter), removed: entries.slice(0, at) };
}
