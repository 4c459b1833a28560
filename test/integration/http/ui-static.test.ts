// Issue 23 points 1 and 9 (decision 241): the daemon serves the built page on its own listener —
// `/` redirects to `/ui/`, files with their types and caching, the Host guard as everywhere, and
// every answer with a strict Content-Security-Policy, nosniff and no-referrer.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { tempDir } from '../../support/tmp.js';

function builtPage(): string {
  const dir = join(tempDir('svc-ui-'), 'ui');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><script type="module" src="/ui/main-ABCD1234.js"></script>',
  );
  writeFileSync(join(dir, 'main-ABCD1234.js'), 'console.log(1);\n');
  writeFileSync(join(dir, 'main-ABCD1234.css'), 'body{}\n');
  writeFileSync(join(dir, 'notes.txt'), 'not served: no type\n');
  return dir;
}

const get = (t: TestApp, url: string, headers: Record<string, string> = {}) =>
  t.kernel.app.inject({ method: 'GET', url, headers: { host: '127.0.0.1', ...headers } });

describe('the web board’s files', () => {
  it('redirects / to /ui/ and serves the page without a credential, with strict headers', async () => {
    const t = await buildTestApp({ kernel: { uiRoots: [builtPage()] } });
    const root = await get(t, '/');
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/ui/');

    for (const url of ['/ui/', '/ui']) {
      const page = await get(t, url);
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toContain('main-ABCD1234.js');
      expect(page.headers['cache-control']).toBe('no-cache');
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(page.headers['set-cookie']).toBeUndefined();
    }
  });

  it('serves hashed files for a year, revalidates the page with its ETag', async () => {
    const t = await buildTestApp({ kernel: { uiRoots: [builtPage()] } });
    const js = await get(t, '/ui/main-ABCD1234.js');
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const css = await get(t, '/ui/main-ABCD1234.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');

    const page = await get(t, '/ui/');
    const etag = String(page.headers.etag);
    const again = await get(t, '/ui/', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('serves nothing outside the built folder, and says when the page is not built', async () => {
    const t = await buildTestApp({ kernel: { uiRoots: [builtPage()] } });
    for (const url of [
      '/ui/notes.txt',
      '/ui/..%2Fpackage.json',
      '/ui/%2E%2E/index.html',
      '/ui/.hidden.js',
      '/ui/nope-ABCD1234.js',
      '/ui/a/b.js',
    ]) {
      const res = await get(t, url);
      // A dot-dot segment is resolved before routing, leaving a path outside /ui/ that needs a
      // credential (401); every other name is simply not a file of the page (404).
      expect([401, 404], url).toContain(res.statusCode);
      expect(res.body).not.toContain('console.log');
      expect(res.json().error.code).toMatch(/^(not_found|unauthorized)$/);
    }
    const bare = await buildTestApp({ kernel: { uiRoots: [tempDir('svc-ui-none-')] } });
    const res = await get(bare, '/ui/');
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toContain('npm run build');
  });

  it('refuses a non-loopback Host on the page as on every route (403)', async () => {
    const t = await buildTestApp({ kernel: { uiRoots: [builtPage()] } });
    for (const url of ['/', '/ui/', '/ui/main-ABCD1234.js']) {
      const res = await get(t, url, { host: 'evil.example:8080' });
      expect(res.statusCode, url).toBe(403);
      expect(res.json()).toMatchObject({ error: { code: 'host_not_allowed' } });
    }
    const exchange = await t.kernel.app.inject({
      method: 'POST',
      url: '/v1/ui/session',
      headers: { host: 'rebound.example', 'content-type': 'application/json' },
      payload: JSON.stringify({ code: 'A'.repeat(43) }),
    });
    expect(exchange.statusCode).toBe(403);
  });

  it('puts the same headers on API answers, errors included', async () => {
    const t = await buildTestApp({ kernel: { uiRoots: [builtPage()] } });
    for (const res of [await t.api('GET', '/v1/tasks'), await get(t, '/v1/tasks')]) {
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });
});
