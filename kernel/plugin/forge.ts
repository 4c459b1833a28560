/**
 * The code-host contract (SPEC §2.10 `forge.*`, §4.4 rules 7–9). Placeholder shape: the GitHub
 * integration extends it.
 */
export interface Forge {
  /** The forge's id (`github`), equal to the plugin folder name. */
  readonly name: string;
  /** True when a remote URL lives on this code host. Two forges matching one remote stop start-up. */
  detect(remoteUrl: string): boolean;
}
