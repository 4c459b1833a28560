// Issue 11 point 4: hostile input on every route the app serves (the list comes from the app itself,
// `routesOf`, so a new route is fuzzed the day it is added). fast-check drives the edges of the
// zod schemas and the body rules (SPEC §4.8, §8): wrong types, strings at and one past each bound,
// unicode (astral, RTL, NUL, lone surrogates), nested junk, concatenated JSON documents, truncated
// documents, bodies over the limits, wrong content types, traversal in ids and names, template
// injection. Each request must (decision 153):
//   - answer below 500, within a generous guard (never a hang);
//   - on a refusal, answer the error envelope with a code from the table (JSON-RPC errors past the
//     door of /mcp), and write nothing: every table's row count, config.yaml and the workflow and
//     trigger directories are unchanged;
//   - never carry the token, in the body or a header; nor may the log file, checked at the end.
// Long-lived streams (`/events`) are opened on a real socket and dropped after their first frame.
// Issue 17 hold 5 (decision 189) adds what that run missed: NUL and control characters in paths,
// branch names and text, names git refuses, paths on pseudo file systems or past NAME_MAX, JSON
// nested 10,000 deep, a 6 KB Content-Type; and no refusal may quote more than 200 bytes of input.
// The budget is fixed (runs per route, fixed seeds), not timed: about 2,000 requests in seconds.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes } from '../../../kernel/errors.js';
import { routesOf } from '../../../kernel/http/index.js';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { addProject, commandWorkflow, createTask } from '../../support/tasks.js';

/** Runs per route: ~70 routes × this stays well under a minute on a loaded 2-core machine. */
const RUNS_PER_ROUTE = 30;
/** Not a speed target: a request still unanswered after this long is a hang. */
const HANG_MS = 20_000;
const MARKER = `pwned${process.pid}`;

const BOUNDS = [255, 256, 512, 513, 1024, 1025, 64 * 1024, 64 * 1024 + 1];

const hostileText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '\u202e\u0645\u0631\u062d\u0628\u0627',
    '👩‍👩‍👧‍👦'.repeat(300),
    'é'.repeat(513),
    `../../../../../../tmp/${MARKER}`,
    `..%2F..%2F..%2Ftmp%2F${MARKER}`,
    `/tmp/${MARKER}`,
    `C:\\Windows\\${MARKER}`,
    '{{.Task.Title}}',
    '{{ range .Fields }}{{ . }}{{ end }}',
    '{{template "x"}}{{define "x"}}{{template "x"}}{{end}}',
    '$' + '{process.exit(1)}',
    '$(touch /tmp/' + MARKER + ')',
    '`touch /tmp/' + MARKER + '`',
    '<script>alert(1)</script>',
    "'; DROP TABLE tasks; --",
    '%s%s%s%n',
    'refs/heads/../../HEAD',
    '-rf',
    '--upload-pack=touch /tmp/' + MARKER,
    // Control characters, branch names git refuses or that mislead, paths the kernel refuses.
    'main\u0000x',
    'a\nb',
    '\r\n',
    '\u001b[2J',
    '\u0007',
    'HEAD',
    '/x',
    'refs/heads/main',
    'a..b',
    'x.lock',
    '@{-1}',
    '/proc/self/x.tar.gz',
    '/sys/x',
    `/tmp/${'n'.repeat(300)}`,
    `/tmp/${'p/'.repeat(2100)}x`,
    '/tmp/a\nb',
  ),
  fc.constantFrom(...BOUNDS).map((n) => 'x'.repeat(n)),
);

const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 1.5, 2 ** 53 + 1, -(2 ** 63), 1e308, 1024, 1025, 512, 513),
);

const leaf = fc.oneof(hostileText, hostileNumber, fc.boolean(), fc.constant(null));
const junk = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileText, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Keys the route schemas know, so junk reaches the field checks rather than "unknown key". */
const KNOWN_KEYS = [
  'title',
  'description',
  'project_id',
  'workflow',
  'fields',
  'priority',
  'branch_name',
  'base_branch',
  'paused',
  'restricted',
  'max_task_cost_usd',
  'agent',
  'model',
  'effort',
  'path',
  'name',
  'prompt_override',
  'run_override',
  'branch_override',
  'prompt',
  'answers',
  'ops',
  'version',
  'yaml',
  'source',
  'scope',
  'event',
  'id',
  'command',
  'poll_interval',
  'max_parallel_tasks',
  'log_level',
  'forge_issue',
  'forge_pull',
  'used_percent',
  'resets_at',
  'dir',
  'default_branch',
  'branch_template',
  'existing_branch',
  'message',
];

const objectBody = fc
  .dictionary(fc.constantFrom(...KNOWN_KEYS), fc.oneof(leaf, junk), { maxKeys: 5 })
  .map((o) => JSON.stringify(o));

const OVER_LARGE = `{"title":"${'x'.repeat(4 * 1024 * 1024 + 16)}"}`;
const rawBody = fc.constantFrom(
  '{}{}',
  '{"title":"a"} {"title":"b"}',
  '{"title":"a"}\n{"title":"b"}',
  '[1] [2]',
  '{"title":',
  '{"title":"a"',
  '\ufeff{}',
  'null',
  '"a string"',
  '12',
  '1e999999',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  `${'['.repeat(3000)}${']'.repeat(3000)}`,
  'title=a&project_id=1',
  '<html></html>',
  '\u0000\u0001\u0002',
  `{"title":"${'y'.repeat(70 * 1024)}"}`,
  OVER_LARGE,
  // Nesting past the bound, bare and under keys a handler walks (decision 189).
  `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
  `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
  `{"event":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`,
  `{"fields":${'{"a":'.repeat(70)}1${'}'.repeat(70)}}`,
  `{"max_parallel_tasks":${'['.repeat(65)}${']'.repeat(65)}}`,
);

const body = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: objectBody },
  { weight: 2, arbitrary: junk.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 2, arbitrary: rawBody },
);

const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/merge-patch+json',
  'text/json',
  'text/html',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/json; charset=utf-16',
  '',
  'json',
  `x/${'y'.repeat(6000)}`,
);

const QUERY_KEYS = [
  'limit',
  'cursor',
  'archived',
  'force',
  'version',
  'offset',
  'tail',
  'types',
  'project_id',
  'task_id',
  'last_event_id',
  'refresh',
  'parent_id',
  'delete_branch',
  'name',
  'scope',
  'file',
];
const query = fc.dictionary(fc.constantFrom(...QUERY_KEYS), hostileText, { maxKeys: 3 });

/** A path parameter: a real id (so the handler runs), or something hostile. */
const param = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('1', '2', 'seed', 'claude', '1') },
  {
    weight: 3,
    arbitrary: hostileText.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/gu, '\ufffd'))),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '..',
      '.',
      '..%2F..%2Fetc',
      '%2e%2e',
      '%00',
      '1%00',
      '0x1',
      '1e3',
      '-1',
      ' 1',
      '99999999999999999999999',
    ),
  },
);

interface Snapshot {
  rows: Record<string, number>;
  files: string;
}

describe('hostile input on every route', () => {
  let t: TestApp;
  let tables: string[];
  let base: string;

  let countRows: () => Record<string, number>;
  const snapshot = (): Snapshot => {
    const rows = countRows();
    const h = createHash('sha256');
    h.update(existsSync(t.paths.configFile) ? readFileSync(t.paths.configFile) : '');
    for (const dir of [t.paths.workflowsDir, join(t.paths.configDir, 'triggers')]) {
      if (!existsSync(dir)) continue;
      for (const f of readdirSync(dir).sort()) {
        const p = join(dir, f);
        h.update(f);
        if (statSync(p).isFile()) h.update(readFileSync(p));
      }
    }
    return { rows, files: h.digest('hex') };
  };

  beforeAll(async () => {
    t = await buildTestApp({ keepOpen: true });
    const { project } = await addProject(t, { ok: commandWorkflow('ok', 'true') });
    await createTask(t, { project_id: project.id, title: 'seed', workflow: 'ok', paused: true });
    await createTask(t, { project_id: project.id, title: 'seed 2', workflow: 'ok', paused: true });
    await t.json('POST', '/v1/triggers', { id: 'seed', project_id: project.id });
    // No admissions: a resume the fuzz lands would otherwise run a task in the background and
    // write rows while a later refusal is being judged. Routes still validate and answer as usual.
    t.kernel.services.scheduler.stop();
    await t.kernel.app.listen({ port: 0, host: '127.0.0.1' });
    const addr = t.kernel.app.server.address() as AddressInfo;
    base = `http://127.0.0.1:${addr.port}`;
    tables = (
      t.kernel.services.store.db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .pluck()
        .all() as string[]
    ).sort();
    // Every table's row count in one prepared statement: the snapshot runs before every request.
    const counts = t.kernel.services.store.db.prepare(
      `SELECT ${tables.map((n) => `(SELECT COUNT(*) FROM "${n}") AS "${n}"`).join(', ')}`,
    );
    countRows = () => counts.get() as Record<string, number>;
  });

  /**
   * A stream stays open by design (SPEC §4.8 rule 4), and inject cannot carry one: streams are
   * opened on a real socket, read up to their first frame (or whole, when refused), then dropped.
   */
  const openStream = async (url: string, headers: Record<string, string>) => {
    const ac = new AbortController();
    const res = await fetch(`${base}${url}`, { headers, signal: ac.signal });
    let body = '';
    if (res.status === 200 && res.body) {
      const reader = res.body.getReader();
      const first = await reader.read();
      body = new TextDecoder().decode(first.value);
      ac.abort();
    } else body = await res.text();
    return { statusCode: res.status, body, headers: Object.fromEntries(res.headers) };
  };

  afterAll(async () => {
    await t?.close();
  });

  it('answers every route below 500, writes nothing on a refusal and never shows the token', async () => {
    const routes = routesOf(t.kernel.app);
    expect(routes.length).toBeGreaterThan(40);
    const codes = new Set(Object.keys(errorCodes));
    for (const route of routes) {
      const streaming = route.url.endsWith('/events') && route.method === 'GET';
      const names = [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1] as string);
      await fc.assert(
        fc.asyncProperty(
          fc.tuple(...names.map(() => param)),
          query,
          route.method === 'GET' || route.method === 'DELETE' ? fc.option(body, { freq: 4 }) : body,
          contentType,
          async (params, q, payload, type) => {
            let url = route.url;
            names.forEach((n, i) => {
              url = url.replace(`:${n}`, params[i] as string);
            });
            const qs = new URLSearchParams(q).toString();
            if (qs) url += `?${qs}`;
            const before = snapshot();
            const headers: Record<string, string> = {
              host: '127.0.0.1',
              authorization: `Bearer ${t.token}`,
            };
            if (type !== undefined) headers['content-type'] = type;
            const request: Promise<{ statusCode: number; body: string; headers: unknown }> =
              streaming
                ? openStream(url, headers)
                : t.kernel.app.inject({
                    method: route.method as 'GET',
                    url,
                    headers,
                    ...(payload === undefined || payload === null ? {} : { payload }),
                  });
            let timer: NodeJS.Timeout | undefined;
            const res = await Promise.race([
              request,
              new Promise<never>((_, reject) => {
                timer = setTimeout(
                  () => reject(new Error(`hang: ${route.method} ${url}`)),
                  HANG_MS,
                );
              }),
            ]).finally(() => clearTimeout(timer));
            const text = res.body;
            const where = `${route.method} ${url.slice(0, 200)} ${type ?? '-'} → ${res.statusCode} ${text.slice(0, 300)}`;
            expect(res.statusCode, where).toBeLessThan(500);
            expect(text.includes(t.token), where).toBe(false);
            expect(JSON.stringify(res.headers).includes(t.token), where).toBe(false);
            if (res.statusCode >= 400) {
              const body = JSON.parse(text) as { jsonrpc?: string; error: { code: unknown } };
              // The MCP endpoint speaks JSON-RPC once a request reaches it (decision 120); the
              // door in front of it (auth, body rules) answers the API envelope like every route.
              if (route.url.startsWith('/mcp') && body.jsonrpc === '2.0')
                expect(typeof body.error.code, where).toBe('number');
              else expect(codes.has(body.error.code as string), where).toBe(true);
              expect(snapshot(), where).toEqual(before);
              // At most 200 bytes of any input quoted back: the long inputs here are runs.
              const message = String((body.error as { message?: unknown }).message ?? '');
              expect(/(.)\1{200}/su.test(message), where).toBe(false);
            }
          },
        ),
        { numRuns: RUNS_PER_ROUTE, seed: 20261122 + routes.indexOf(route) },
      );
    }
    expect(existsSync(`/tmp/${MARKER}`)).toBe(false);
    expect(readFileSync(t.paths.logFile, 'utf8').includes(t.token)).toBe(false);
  }, 240_000);

  it('keeps titles verbatim: template text and unicode are data, never evaluated', async () => {
    const project = (await t.json<Array<{ id: number }>>('GET', '/v1/projects'))[0] as {
      id: number;
    };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(hostileText, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 })),
        async (title) => {
          const res = await t.api(
            'POST',
            '/v1/tasks',
            { project_id: project.id, title, workflow: 'ok', paused: true },
            { 'content-type': 'application/json' },
          );
          if (Buffer.byteLength(title) > 1024 || title.trim() === '' || title.includes('\u0000')) {
            expect(res.statusCode === 201 || res.statusCode === 400, res.body).toBe(true);
            return;
          }
          if (res.statusCode !== 201) {
            expect(res.statusCode, res.body).toBe(400);
            return;
          }
          const task = res.json() as { id: number; title: string; branch_name: string };
          expect(task.title).toBe(title);
          expect(task.branch_name).toMatch(/^svc\/\d+(-[a-z0-9-]+)?$/);
          const again = await t.json<{ title: string }>('GET', `/v1/tasks/${task.id}`);
          expect(again.title).toBe(title);
        },
      ),
      { numRuns: 60, seed: 11 },
    );
  });
});
