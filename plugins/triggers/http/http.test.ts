// The http source through its kind's contract suite, and the signature scheme (decision 083).
import { describe, expect, it } from 'vitest';
import { describeTriggerSource } from '../../../test/support/describe-trigger-source.js';
import plugin, { httpSource } from './index.js';
import { sign, verify } from './signature.js';

const SECRET = 'sixteen-chars-or-more';
const NOW = Date.UTC(2026, 10, 21, 12);
const TS = String(NOW / 1000);
const raw = Buffer.from('{"id":"e1","x":1}');
const signed = { 'x-svc-timestamp': TS, 'x-svc-signature': sign(SECRET, TS, raw) };

describeTriggerSource(httpSource, {
  plugin,
  valid: [
    { type: 'http', signature: { secret: SECRET } },
    { type: 'http', signature: { secret_env: 'HOOK_SECRET', max_skew: '1m' } },
  ],
  invalid: [
    { def: { type: 'http' }, path: 'signature' },
    { def: { type: 'http', signature: {} }, path: 'signature.secret' },
    {
      def: { type: 'http', signature: { secret: SECRET, secret_env: 'X' } },
      path: 'signature.secret',
    },
    { def: { type: 'http', signature: { secret: 'short' } }, path: 'signature.secret' },
    {
      def: { type: 'http', signature: { secret_env: 'not a name' } },
      path: 'signature.secret_env',
    },
    {
      def: { type: 'http', signature: { secret: SECRET, max_skew: '2h' } },
      path: 'signature.max_skew',
    },
  ],
  accepts: [
    {
      name: 'a signed body is the event, its id its own',
      def: { type: 'http', signature: { secret: SECRET } },
      request: { raw, body: { id: 'e1', x: 1 }, headers: signed, now: NOW },
      expect: (r) => expect(r).toEqual({ ok: true, event: { id: 'e1', x: 1 } }),
    },
    {
      name: 'the secret may come from the environment',
      def: { type: 'http', signature: { secret_env: 'HOOK' } },
      request: { raw, body: { id: 'e1' }, headers: signed, now: NOW, env: { HOOK: SECRET } },
      expect: (r) => expect(r.ok).toBe(true),
    },
    {
      name: 'an unset secret_env refuses everything',
      def: { type: 'http', signature: { secret_env: 'HOOK' } },
      request: { raw, body: { id: 'e1' }, headers: signed, now: NOW, env: {} },
      expect: (r) => expect(r).toMatchObject({ ok: false, reason: 'secret_missing' }),
    },
  ],
});

describe('the signature scheme', () => {
  it('signs "<timestamp>." plus the raw bytes with HMAC-SHA256, hex', () => {
    // Computed independently: printf '1.{}' | openssl dgst -sha256 -hmac key
    const vector = 'sha256=1ba6b8171186efc613e8bcc0cbdab2748f24984d7c5a84faa2637afa0e40d224';
    expect(sign('key', '1', '{}')).toBe(vector);
    expect(sign('key', '1', Buffer.from('{}'))).toBe(vector);
  });

  it('signs "<timestamp>.<event id>." plus the raw bytes when the id is a header (decision 188)', () => {
    // Computed independently: printf '1.evt-1.{}' | openssl dgst -sha256 -hmac key
    const vector = 'sha256=abc947c3ee461e58ae9ca62cb78acb66fe10dcb09dcd8be89f054e299922a0d1';
    expect(sign('key', '1', '{}', 'evt-1')).toBe(vector);
    const headers = (id: string | undefined, signedId: string | undefined) => ({
      'x-svc-timestamp': TS,
      'x-svc-signature': sign(SECRET, TS, raw, signedId),
      ...(id === undefined ? {} : { 'x-svc-event-id': id }),
    });
    expect(verify(SECRET, headers('d-1', 'd-1'), raw, NOW, 300_000).ok).toBe(true);
    for (const [sent, signedWith] of [
      ['d-2', 'd-1'],
      ['d-1', undefined],
      [undefined, 'd-1'],
    ] as const)
      expect(verify(SECRET, headers(sent, signedWith), raw, NOW, 300_000)).toMatchObject({
        ok: false,
        reason: 'signature_mismatch',
      });
    expect(verify(SECRET, headers('a{b', 'a{b'), raw, NOW, 300_000)).toMatchObject({
      ok: false,
      reason: 'event_id_invalid',
    });
  });

  it.each([
    ['the right key', SECRET, TS, raw, true, undefined],
    ['a wrong key', 'another-secret-value', TS, raw, false, 'signature_mismatch'],
    ['an altered body', SECRET, TS, Buffer.from('{"id":"e1","x":2}'), false, 'signature_mismatch'],
    ['a stale timestamp', SECRET, String(NOW / 1000 - 301), raw, false, 'timestamp_stale'],
    ['a future timestamp', SECRET, String(NOW / 1000 + 301), raw, false, 'timestamp_stale'],
    ['a timestamp that is not a number', SECRET, 'yesterday', raw, false, 'timestamp_stale'],
  ])('%s', (_name, key, ts, body, ok, reason) => {
    const headers = { 'x-svc-timestamp': ts, 'x-svc-signature': sign(key, ts, body) };
    const v = verify(SECRET, headers, raw, NOW, 300_000);
    expect(v.ok).toBe(ok);
    if (!v.ok) expect(v.reason).toBe(reason);
  });

  it('binds the timestamp: a signature moved to another timestamp fails', () => {
    const other = String(NOW / 1000 - 10);
    const v = verify(
      SECRET,
      { 'x-svc-timestamp': other, 'x-svc-signature': sign(SECRET, TS, raw) },
      raw,
      NOW,
      300_000,
    );
    expect(v).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('accepts any one of several signatures (rotation) and refuses missing headers', () => {
    const both = `sha256=${'0'.repeat(64)}, ${sign(SECRET, TS, raw)}`;
    expect(
      verify(SECRET, { 'x-svc-timestamp': TS, 'x-svc-signature': both }, raw, NOW, 300_000).ok,
    ).toBe(true);
    expect(verify(SECRET, { 'x-svc-timestamp': TS }, raw, NOW, 300_000)).toMatchObject({
      reason: 'signature_missing',
    });
    expect(
      verify(SECRET, { 'x-svc-signature': sign(SECRET, TS, raw) }, raw, NOW, 300_000),
    ).toMatchObject({ reason: 'signature_missing' });
  });
});
