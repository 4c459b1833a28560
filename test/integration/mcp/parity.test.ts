/**
 * Parity of the tool table with the API (decision 121): every route the daemon serves is a tool's
 * route or named in NOT_TOOLS with its reason, every tool mirrors a route that exists, and the
 * exclusions SPEC §4.1, §4.5 and §5.6 require stay excluded.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { routesOf } from '../../../kernel/http/index.js';
import { builtinTools, exclusionOf } from '../../../kernel/mcp/index.js';
import { buildTestApp } from '../../support/app.js';

test('every route is a tool or excluded with a reason, and every tool mirrors a real route', async () => {
  const t = await buildTestApp();
  const tools = t.kernel.services.mcp.tools;
  const routes = routesOf(t.kernel.app).map((r) => `${r.method} ${r.url}`);
  const mirrored = new Set(tools.map((tool) => tool.route));
  const uncovered = routesOf(t.kernel.app).filter(
    (r) => !mirrored.has(`${r.method} ${r.url}`) && exclusionOf(r.method, r.url) === undefined,
  );
  expect(uncovered).toEqual([]);
  for (const tool of tools) expect(routes, tool.name).toContain(tool.route);
  // A route is a tool or excluded, never both.
  for (const tool of tools) {
    const [method, url] = tool.route.split(' ') as [string, string];
    expect(exclusionOf(method, url), tool.name).toBeUndefined();
  }
  expect(new Set(tools.map((x) => x.name)).size).toBe(tools.length);
});

test('the exclusions by design stay excluded (SPEC §4.1, §4.5, §5.6)', () => {
  for (const [method, url] of [
    ['PATCH', '/v1/config'],
    ['POST', '/v1/agents/:name/quota'],
    ['POST', '/v1/chats'],
    ['GET', '/v1/chats'],
    ['GET', '/v1/chats/:id'],
    ['POST', '/v1/chats/:id/send'],
    ['POST', '/v1/chats/:id/handoff'],
    ['GET', '/v1/chats/:id/events'],
    ['GET', '/v1/chats/:id/turns/:seq/transcript'],
    ['GET', '/v1/chats/:id/skills'],
    ['GET', '/v1/chats/:id/files'],
    ['DELETE', '/v1/chats/:id'],
    ['POST', '/v1/tasks/:id/chat'],
  ] as const) {
    expect(exclusionOf(method, url), `${method} ${url}`).toMatch(/by design/);
    expect(builtinTools.map((x) => x.route)).not.toContain(`${method} ${url}`);
  }
});

test('docs/mcp.md lists every tool with the route it mirrors, and no other', () => {
  const doc = readFileSync(new URL('../../../docs/mcp.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| `([A-Z]+) ([^`]+)` \|/gm)].map(
    (m) =>
      `${m[1]} ${m[2]} ${(m[3] as string).replace(/\{(\w+)\}/g, (_, p: string) => (p === 'run' ? ':run' : ':id'))}`,
  );
  expect(rows.sort()).toEqual(builtinTools.map((t) => `${t.name} ${t.route}`).sort());
});
