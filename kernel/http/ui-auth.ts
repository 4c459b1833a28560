/**
 * Signing in to the web board (issue 23, decision 240). `svc ui` asks for a sign-in code with the
 * daemon token; the page trades the code (single use, 60 s) for a session credential it keeps in
 * `sessionStorage` and sends as a bearer header. The long-lived token never reaches the browser.
 *
 * Codes live in memory only: a restart forgets them, which costs a user one more `svc ui`.
 * A session credential is derived, not stored (as the per-step MCP tokens are, decision 122):
 * `ui1.<expires ms>.<nonce>.<HMAC-SHA256(daemon token, "svc-ui-session:<expires ms>.<nonce>")>`,
 * so it survives a daemon restart, expires on its own, and dies with the token.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock/index.js';
import { SvcError } from '../errors.js';

/** How long a sign-in code may wait to be used. */
export const UI_CODE_TTL_MS = 60_000;
/** How long a session credential opens the API: a working day and a night, then `svc ui` again. */
export const UI_SESSION_TTL_MS = 24 * 60 * 60_000;
/** Codes kept at once; a loop of `svc ui` cannot grow the daemon's memory. */
const MAX_CODES = 64;
/** How long a code is remembered after it was issued, so a reused or late one is named as such. */
const REMEMBER_MS = 10 * 60_000;

export const UI_CODE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const SESSION_PATTERN = /^ui1\.(\d{13,15})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export interface UiCode {
  code: string;
  expires_at: string;
}

export interface UiSession {
  session: string;
  expires_at: string;
}

interface CodeEntry {
  issuedMs: number;
  used: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class UiAuth {
  private readonly codes = new Map<string, CodeEntry>();

  constructor(
    private readonly token: string,
    private readonly clock: Clock,
  ) {}

  /** A fresh single-use code (the caller holds the daemon token). */
  issueCode(): UiCode {
    this.prune();
    while (this.codes.size >= MAX_CODES) {
      const oldest = this.codes.keys().next().value;
      if (oldest === undefined) break;
      this.codes.delete(oldest);
    }
    const code = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    this.codes.set(code, { issuedMs: now, used: false });
    return { code, expires_at: iso(now + UI_CODE_TTL_MS) };
  }

  /**
   * Trades a code for a session credential, once. An unknown, used or expired code is 401
   * `unauthorized` with `details.reason` so the page can say which.
   */
  exchange(code: string): UiSession {
    this.prune();
    const entry = this.codes.get(code);
    const now = this.clock.now();
    const refuse = (reason: string, what: string) =>
      new SvcError('unauthorized', `${what}; run \`svc ui\` for a new sign-in link`, { reason });
    if (!entry) throw refuse('code_unknown', 'this sign-in code is not one the daemon issued');
    if (entry.used) throw refuse('code_used', 'this sign-in code was already used');
    if (now - entry.issuedMs > UI_CODE_TTL_MS)
      throw refuse('code_expired', 'this sign-in code expired (codes last 60 seconds)');
    entry.used = true;
    const expires = now + UI_SESSION_TTL_MS;
    const nonce = randomBytes(16).toString('base64url');
    return {
      session: `ui1.${expires}.${nonce}.${this.mac(expires, nonce)}`,
      expires_at: iso(expires),
    };
  }

  /** True when `header` is `Bearer <a live session credential>`. */
  accepts(header: string | undefined): boolean {
    const m = /^Bearer (\S+)\s*$/.exec(header ?? '');
    const s = m ? SESSION_PATTERN.exec(m[1] as string) : null;
    if (!s) return false;
    const expires = Number(s[1]);
    const given = Buffer.from(s[3] as string);
    const wanted = Buffer.from(this.mac(expires, s[2] as string));
    return (
      given.length === wanted.length && timingSafeEqual(given, wanted) && expires > this.clock.now()
    );
  }

  /**
   * The front door's questions (guard.ts): which paths need no credential at all — the page and
   * its assets hold no data, and the exchange takes a code instead — and which a session opens:
   * every `/v1` route but the one that issues codes, so a session cannot renew itself.
   */
  isPublic(method: string, path: string): boolean {
    if (method === 'POST') return path === '/v1/ui/session';
    if (method !== 'GET' && method !== 'HEAD') return false;
    return path === '/' || path === '/ui' || path.startsWith('/ui/');
  }

  opens(path: string, authorization: string | undefined): boolean {
    return (
      path.startsWith('/v1/') && !path.startsWith('/v1/ui/codes') && this.accepts(authorization)
    );
  }

  private mac(expires: number, nonce: string): string {
    return createHmac('sha256', this.token)
      .update(`svc-ui-session:${expires}.${nonce}`)
      .digest('base64url');
  }

  private prune(): void {
    const now = this.clock.now();
    for (const [code, e] of this.codes) if (now - e.issuedMs > REMEMBER_MS) this.codes.delete(code);
  }
}
