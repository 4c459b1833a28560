import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { lazyTls } from '../../../scripts/lazy-tls.js';

// Decision 249: the bundle loads fastify's TLS and HTTP/2 built-ins on first use; the build must
// refuse a fastify whose server module no longer matches what it rewrites.
const SERVER = createRequire(import.meta.url).resolve('fastify/lib/server.js');

describe('fastify with TLS and HTTP/2 on first use', () => {
  it("rewrites the installed fastify's two requires into lazy ones", () => {
    const out = lazyTls(readFileSync(SERVER, 'utf8'), SERVER);
    expect(out).not.toContain("= require('node:https')");
    expect(out).not.toContain("= require('node:http2')");
    expect(out).toContain("createServer: (...a) => require('node:https').createServer(...a)");
    expect(out).toContain(
      "createSecureServer: (...a) => require('node:http2').createSecureServer(...a)",
    );
  });

  it('refuses a module whose require lines changed, naming the line', () => {
    const source = "const https = require('https')\nconst http2 = require('node:http2')\n";
    expect(() => lazyTls(source, 'server.js')).toThrow(
      "server.js no longer has `const https = require('node:https')`",
    );
  });

  it('refuses a module that reads anything else from them', () => {
    const source = [
      "const https = require('node:https')",
      "const http2 = require('node:http2')",
      'const agent = https.globalAgent',
      'const { HTTP2_HEADER_STATUS } = http2.constants',
    ].join('\n');
    expect(() => lazyTls(source, 'server.js')).toThrow(
      'server.js reads https.globalAgent, http2.constants; teach scripts/lazy-tls.ts',
    );
  });
});
