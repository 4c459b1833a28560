/**
 * The web board's build (issue 23, decision 242): `web/main.tsx` and its styles bundled by esbuild
 * into `dist/ui/` — content-hashed `main-<hash>.js` and `.css` and an icon — plus `index.html`
 * naming them, which the daemon serves under `/ui/` (kernel/http/ui-assets.ts). Nothing is fetched
 * at run time: preact, diff2html and its stylesheet are inside the bundle. Runs after `tsc` in
 * `npm run build`, beside the daemon's bundle (scripts/bundle.ts), never inside it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT = join(ROOT, 'dist', 'ui');

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#3b6fe0"/><path d="M9 11h14M9 16h9M9 21h12" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>\n`;

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const result = await build({
  entryPoints: [join(ROOT, 'web', 'main.tsx')],
  outdir: OUT,
  entryNames: '[name]-[hash]',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox115', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  metafile: true,
  logLevel: 'warning',
});
const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const js = outputs.find((f) => /^main-[A-Z0-9]{8}\.js$/.test(f));
const css = outputs.find((f) => /^main-[A-Z0-9]{8}\.css$/.test(f));
if (!js || !css) throw new Error(`web build: no main js/css among ${outputs.join(', ')}`);
const iconHash = createHash('sha256').update(ICON).digest('hex').slice(0, 8).toUpperCase();
const icon = `icon-${iconHash}.svg`;
writeFileSync(join(OUT, icon), ICON);
writeFileSync(
  join(OUT, 'index.html'),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>svc</title>
<link rel="icon" href="/ui/${icon}" type="image/svg+xml">
<link rel="stylesheet" href="/ui/${css}">
<script type="module" src="/ui/${js}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The svc web board needs JavaScript.</noscript>
</body>
</html>
`,
);
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
process.stdout.write(`built the web board into ${OUT} (${Math.round(bytes / 1024)} KiB)\n`);
