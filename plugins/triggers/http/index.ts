/**
 * http: a trigger source that accepts one signed event per request on
 * `POST /v1/triggers/{id}/events` (SPEC §4.6). The request still needs the daemon's bearer
 * token; on top, its body must be signed with the trigger's own secret (signature.ts), read
 * from the file (`secret`, which is why trigger files are 0600) or from an environment variable
 * of the daemon (`secret_env`). The body is the event (a JSON object); its id is the body's `id`,
 * else the `X-Svc-Event-Id` header (signed with the body), else a digest of the raw bytes, so a
 * replayed request is deduped. Uses only the plugin door. Decisions 083, 188.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  definePlugin,
  defineTriggerSource,
  durationField,
  durationMs,
  type TriggerFieldRow,
} from '../../../kernel/plugin/index.js';
import { EVENT_ID_HEADER, verify } from './signature.js';

export const SignatureSchema = z
  .strictObject({
    secret: z.string().min(16, 'secret must be at least 16 characters').optional(),
    secret_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'secret_env names an environment variable')
      .optional(),
    max_skew: durationField('max_skew', '5m', 1000).refine(
      (v) => durationMs(v) <= 3_600_000,
      'max_skew is at most 1h',
    ),
  })
  .refine((s) => (s.secret === undefined) !== (s.secret_env === undefined), {
    message: 'give exactly one of secret or secret_env',
    path: ['secret'],
  });

export const HttpSourceSchema = z.strictObject({
  type: z.literal('http'),
  signature: SignatureSchema,
});
export type HttpSource = z.infer<typeof HttpSourceSchema>;

const signatureRows: TriggerFieldRow[] = [
  {
    name: 'secret',
    control: 'string',
    help: 'The shared HMAC secret (16 characters or more). The file is kept 0600; prefer secret_env.',
  },
  {
    name: 'secret_env',
    control: 'string',
    help: 'Name of an environment variable of the daemon holding the secret. Give secret or secret_env.',
  },
  {
    name: 'max_skew',
    control: 'duration',
    default: '5m',
    help: 'How far X-Svc-Timestamp may be from the daemon clock (at most 1h).',
  },
];

export const httpSource = defineTriggerSource<HttpSource>({
  type: 'http',
  schema: HttpSourceSchema,
  meta: {
    kind: 'push',
    help: 'Accepts signed events on POST /v1/triggers/{id}/events (headers X-Svc-Timestamp, X-Svc-Signature: sha256=HMAC(secret, "<timestamp>." + body), or over "<timestamp>.<id>." + body with X-Svc-Event-Id).',
    rows: [{ name: 'signature', control: 'signature', required: true }],
    signature: signatureRows,
    trusted: ['id'],
  },
  accept(def, req) {
    const secret = def.signature.secret ?? req.env[def.signature.secret_env ?? ''] ?? '';
    if (secret === '')
      return {
        ok: false,
        reason: 'secret_missing',
        message: `the trigger's secret is not set (${def.signature.secret_env ?? 'secret'} is empty)`,
      };
    const v = verify(secret, req.headers, req.raw, req.now, durationMs(def.signature.max_skew));
    if (!v.ok) return v;
    const body = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      return { ok: false, reason: 'not_an_event', message: 'the body must be a JSON object' };
    const obj = body as Record<string, unknown>;
    const own = obj.id;
    // Verified above: present, it is in the signed message and in the id grammar.
    const header = req.headers[EVENT_ID_HEADER];
    const id =
      (typeof own === 'string' && own !== '') || (typeof own === 'number' && Number.isFinite(own))
        ? String(own)
        : header || `sha256:${createHash('sha256').update(req.raw).digest('hex')}`;
    return { ok: true, event: { ...obj, id } };
  },
});

export default definePlugin({
  name: 'svc:triggers/http',
  svc: '^2.0.0',
  setup(api) {
    api.registerTriggerSource(httpSource);
  },
});
