/**
 * The built-in plugins compiled into the single-file build. Here, in the sources and the plain
 * `tsc` output, there are none: discovery scans `plugins/` at start-up. scripts/bundle.ts replaces
 * this module with the list it scanned the same way, each entry importing its plugin statically,
 * so the bundle holds one copy of the kernel and adding a plugin is still adding a folder.
 */
export interface BundledPlugin {
  /** Where the plugin's built file sits in dist/ (what the registry reports as its `file`). */
  file: string;
  load(): Promise<unknown>;
}

export const bundledPlugins: readonly BundledPlugin[] | null = null;
