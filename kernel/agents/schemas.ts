/** Request bodies of the agent routes (SPEC §4.1 quota push, §4.3 resolve). zod is the single source of truth. */
import { z } from 'zod';
import { CreateTaskSchema } from '../engine/index.js';
import { BRANCH_BYTES, boundedString } from '../input/index.js';

/**
 * `POST /v1/agents/{name}/quota` for an adapter whose quota is not a push source of its own: the
 * shape SPEC §4.1 gives, at least one window, `resets_at` omitted rather than a zero time. An
 * adapter with a push source validates the body itself (claude also takes its status-line JSON).
 */
export const QuotaPushSchema = z.strictObject({
  source: z.string({ error: 'source is required' }).min(1, 'source is required'),
  windows: z
    .array(
      z.strictObject({
        name: z.string().min(1, 'a window needs a name'),
        used_percent: z.number().min(0, 'used_percent must not be negative'),
        window: z.string().nullable().default(null),
        resets_at: z.iso.datetime({ offset: true }).optional(),
      }),
      { error: 'windows is required (a list)' },
    )
    .min(1, 'the body names no window'),
});

/**
 * `POST /v1/resolve`: a candidate `POST /v1/tasks` body (every field optional, `project_id` too),
 * so a form can ask what its current values would resolve to before it creates anything.
 */
export const ResolveBodySchema = CreateTaskSchema.partial().extend({
  // A preview answers a bad branch name in `branch.error` instead of refusing the whole body: the
  // form shows it beside the row while the user types, and still previews every other field.
  branch_name: boundedString('branch_name', BRANCH_BYTES, 'line')
    .optional()
    .describe(
      'The branch the task would use; a name git would refuse comes back as branch.error, not a 400.',
    ),
});
export type ResolveBody = z.infer<typeof ResolveBodySchema>;
