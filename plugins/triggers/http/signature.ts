/**
 * The ingress signature scheme (decisions 083, 188). A sender signs each request with a shared
 * secret:
 *
 *   X-Svc-Timestamp: <unix seconds>
 *   X-Svc-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>." + raw body bytes)>
 *
 * or, when it names the event in `X-Svc-Event-Id: <id>`, over "<timestamp>.<id>." + raw body:
 * everything that decides delivery is signed, so one request resent with new ids fires nothing
 * new. The timestamp is inside the signed message, so an old body cannot be replayed with a fresh
 * timestamp; a timestamp further than `max_skew` from the daemon's clock is refused, and within
 * the window a replayed body carries the same event id and is deduped. Several `sha256=` values
 * separated by commas are accepted (rotating a secret), and each is compared in constant time.
 *
 * An id is 1–200 of `A-Z a-z 0-9 . _ : + / = @ -`: no `{` and no whitespace, so no signed message
 * reads two ways (a body, a JSON object, starts with one or the other; an id never does).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const TIMESTAMP_HEADER = 'x-svc-timestamp';
export const SIGNATURE_HEADER = 'x-svc-signature';
export const EVENT_ID_HEADER = 'x-svc-event-id';
export const EVENT_ID_PATTERN = /^[A-Za-z0-9._:+/=@-]{1,200}$/;

export function sign(
  secret: string,
  timestamp: string,
  raw: Buffer | string,
  eventId?: string,
): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  mac.update(eventId === undefined ? `${timestamp}.` : `${timestamp}.${eventId}.`);
  mac.update(typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw);
  return `sha256=${mac.digest('hex')}`;
}

export type Verdict =
  | { ok: true }
  | {
      ok: false;
      reason: 'signature_missing' | 'timestamp_stale' | 'signature_mismatch' | 'event_id_invalid';
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
  const id = headers[EVENT_ID_HEADER];
  if (id !== undefined && !EVENT_ID_PATTERN.test(id))
    return {
      ok: false,
      reason: 'event_id_invalid',
      message:
        'X-Svc-Event-Id must be 1 to 200 of A-Z a-z 0-9 . _ : + / = @ - (it is signed with the body)',
    };
  const expected = Buffer.from(sign(secret, ts, raw, id), 'utf8');
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
      message:
        id === undefined
          ? 'X-Svc-Signature does not match the body'
          : 'X-Svc-Signature does not match the event id and the body',
    };
  return { ok: true };
}
