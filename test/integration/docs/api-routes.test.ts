// Issue 12 point 3: docs/api.md indexes every route the daemon serves, and nothing it does not.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../support/app.js';

/** `METHOD /path/{}` for every route in fastify's route tree (HEAD left out: it follows GET). */
function routesOf(tree: string): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of tree.split('\n')) {
    // `│   ├── segment (METHODS)`: each level of the tree is four characters of indent. Under a
    // route at `/` the segments that follow start without a slash (`v1/health`).
    const m = /^((?:[│ ] {3})*)[├└]── (\S+) \(([A-Z, ]+)\)$/.exec(line);
    if (!m) continue;
    const depth = (m[1] as string).length / 4;
    stack.length = depth;
    stack[depth] = m[2] as string;
    const path = stack.join('').replace(/:[a-z_]+/g, '{}');
    for (const method of (m[3] as string).split(', '))
      if (method !== 'HEAD') out.push(`${method} ${path}`);
  }
  return out.sort();
}

function documented(markdown: string): string[] {
  const start = markdown.indexOf('<!-- routes:start -->');
  const end = markdown.indexOf('<!-- routes:end -->');
  expect(start).toBeGreaterThan(0);
  return [...markdown.slice(start, end).matchAll(/^\| ([A-Z]+) \| `([^`]+)` \|/gm)]
    .map((m) => `${m[1]} ${(m[2] as string).replace(/\{[a-z_]+\}/g, '{}')}`)
    .sort();
}

describe('docs/api.md route index', () => {
  it('lists exactly the routes the daemon serves', async () => {
    const t = await buildTestApp();
    await t.kernel.app.ready();
    const served = routesOf(t.kernel.app.printRoutes({ commonPrefix: false }));
    expect(served.length).toBeGreaterThan(40);
    expect(served).toContain('POST /v1/tasks/{}/follow_up');
    const doc = documented(readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8'));
    expect(doc).toEqual(served);
  });
});
