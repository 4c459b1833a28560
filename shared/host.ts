/**
 * What the launcher lends the code it runs (decision 158). In the single-file build the code runs
 * inside `vm.Script`, where a bare `import()` has no loader on Node 20; the launcher (a real ES
 * module) hands over its own. Run from the plain `tsc` output or the sources, the defaults apply.
 */
export interface Host {
  /** Imports a module that is not part of the build: a `plugins:` entry, the board. */
  importExternal(url: string): Promise<unknown>;
  /** Writes the V8 code cache if this run made one worth keeping; the file, or null. */
  saveCodeCache(): string | null;
  /** How this run was compiled: `accepted`, `missing` or `rejected` cache, or `unbundled`. */
  codeCache: 'accepted' | 'missing' | 'rejected' | 'unbundled';
}

let host: Host = {
  importExternal: (url) => import(url),
  saveCodeCache: () => null,
  codeCache: 'unbundled',
};

export function setHost(next: Host): void {
  host = next;
}

export function currentHost(): Host {
  return host;
}

export function importExternal(url: string): Promise<unknown> {
  return host.importExternal(url);
}
