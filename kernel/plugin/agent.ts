/**
 * The agent adapter contract (SPEC §2.3, §2.4). Placeholder: the adapters' author fills it in.
 */
export interface AgentAdapter {
  /** The id users type (`claude`), equal to the plugin folder name. */
  readonly name: string;
}
