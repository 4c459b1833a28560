/**
 * The trigger source contract (SPEC §2.6): a source type (`command`, `forge_issues`, `http`,
 * `schedule`, …) with its strict schema. Placeholder shape: the trigger runtime extends it.
 */
import type { ZodType } from 'zod';

export interface TriggerSource {
  /** The id users write as the source `type:`, equal to the plugin folder name. */
  readonly type: string;
  readonly schema: ZodType;
}
