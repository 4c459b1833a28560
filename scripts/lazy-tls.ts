/**
 * fastify's server module requires `node:https` and `node:http2` as it loads, for servers svc never
 * makes (loopback HTTP/1.1 only): ~20 ms of every start compiling TLS and HTTP/2 (decision 249).
 * The build (scripts/bundle.ts) turns the two requires into objects that load the built-in on the
 * first server asked of them. It refuses, rather than bundle something that would fail at run
 * time, when fastify's lines change or the module reads anything else from them.
 */
const EAGER = ["const https = require('node:https')", "const http2 = require('node:http2')"];
const LAZY = [
  "const https = { createServer: (...a) => require('node:https').createServer(...a) }",
  "const http2 = { createServer: (...a) => require('node:http2').createServer(...a), createSecureServer: (...a) => require('node:http2').createSecureServer(...a) }",
];
/** What the module may read from them: the two factories, and the types its comments name. */
const KNOWN = /^(https|http2)\.(createServer|createSecureServer|Http2Server|Http2Session)$/;

/** `source` (fastify/lib/server.js, read from `file`) with the lazy requires. */
export function lazyTls(source: string, file: string): string {
  let out = source;
  EAGER.forEach((line, i) => {
    if (!out.includes(line)) throw new Error(`${file} no longer has \`${line}\``);
    out = out.replace(line, LAZY[i] as string);
  });
  const reads = (out.match(/\b(https|http2)\.\w+/g) ?? []).filter((r) => !KNOWN.test(r));
  if (reads.length > 0)
    throw new Error(`${file} reads ${reads.join(', ')}; teach scripts/lazy-tls.ts`);
  return out;
}
