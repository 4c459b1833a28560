/**
 * The ingress signature scheme (decision 083). A sender signs each request with a shared secret:
 *
 *   X-Svc-Timestamp: <unix seconds>
 *   X-Svc-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>." + raw body bytes)>
 *
 * The timestamp is inside the signed message, so an old body cannot be replayed with a fresh
 * timestamp; a timestamp further than `max_skew` from the daemon's clock is refused, and within
 * the window a replayed body carries the same event id and is deduped. Several `sha256=` values
 * separated by commas are accepted (rotating a secret), and each is compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const TIMESTAMP_HEADER = 'x-svc-timestamp';
export const SIGNATURE_HEADER = 'x-svc-signature';
export const EVENT_ID_HEADER = 'x-svc-event-id';

export function sign(secret: string, timestamp: string, raw: Buffer | string): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  mac.update(`${timestamp}.`);
  mac.update(typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw);
  return `sha256=${mac.digest('hex')}`;
}

export type Verdict =
  | { ok: true }
  | {
      ok: false;
      reason: 'signature_missing' | 'timestamp_stale' | 'signature_mismatch';
      message: string;
    };

export function verify(
  secret: string,
  headers: Record<string, string | undefined>,
  raw: Buffer,
  nowMs: number,
  maxSkewMs: number,
): Verdict {
  const ts = headers[TIMESTAMP_HEADER]?.trim();
  const given = headers[SIGNATURE_HEADER]?.trim();
  if (!ts || !given)
    return {
      ok: false,
      reason: 'signature_missing',
      message: 'the request needs X-Svc-Timestamp and X-Svc-Signature headers',
    };
  if (!/^\d{1,12}$/.test(ts) || Math.abs(nowMs - Number(ts) * 1000) > maxSkewMs)
    return {
      ok: false,
      reason: 'timestamp_stale',
      message: 'X-Svc-Timestamp is not a unix time within the accepted window of the daemon clock',
    };
  const expected = Buffer.from(sign(secret, ts, raw), 'utf8');
  let match = false;
  for (const candidate of given.split(',')) {
    const c = Buffer.from(candidate.trim(), 'utf8');
    // Compare every candidate, so the time taken says nothing about which one (if any) matched.
    if (c.length === expected.length && timingSafeEqual(c, expected)) match = true;
  }
  if (!match)
    return {
      ok: false,
      reason: 'signature_mismatch',
      message: 'X-Svc-Signature does not match the body',
    };
  return { ok: true };
}
