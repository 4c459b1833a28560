/** Request bodies and queries of the ops routes (SPEC §4.1), as zod schemas. */
import { z } from 'zod';
import { pathField } from '../input/index.js';

/** A boolean query flag: `?force`, `?force=true|1` are true; `false|0` false. */
const flag = z
  .enum(['', 'true', 'false', '1', '0'], { error: 'must be true or false' })
  .transform((v) => v === '' || v === 'true' || v === '1');

export const DoctorQuerySchema = z.strictObject({
  /** false: agent rows come from the probe cache instead of fresh probes. */
  probe: flag
    .optional()
    .describe('false: read the agent CLIs from the probe cache instead of probing them now.'),
});

export const DoctorFixQuerySchema = z.strictObject({ force: flag.optional() });
export const DoctorFixBodySchema = z.strictObject({ force: z.boolean().optional() });

export const BackupBodySchema = z.strictObject({
  path: pathField('path', 'path is required: an absolute path that does not exist yet'),
});

export const GcBodySchema = z.strictObject({
  force: z.boolean().optional(),
  dry_run: z.boolean().optional(),
});

export const EmptyQuerySchema = z.strictObject({});
