/**
 * What the board holds that is its own, not a daemon answer: the `tui` settings it assembles from
 * `GET /v1/config` (api.ts). The answers it draws are in shared/wire-types.ts, the same types the
 * web board reads.
 */

export interface TuiSettings {
  group_by: Array<'project' | 'workflow' | string>;
  hyperlinks: boolean;
  keys: Record<string, string>;
}
