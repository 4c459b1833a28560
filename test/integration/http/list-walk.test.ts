// Issue 22 point 3 (decision 244): GET /v1/tasks reads a page's ids, then steps through its rows,
// building each row's view and writing its JSON straight into the body, so no page of rows, views
// or texts is ever held. Clients read the bytes, so every page of every query form must be exactly
// the bytes `JSON.stringify` gives the rows built whole from each task (its detail less the
// detail-only keys), in the same order: with open chats, loops, forge links read row by row, text
// beyond Latin-1, and rows large enough to grow the body's scratch buffer and to give it back.
import { describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../support/app.js';
import { DETAIL_ONLY, type Row, seedEveryKindOfRow } from '../../support/list-seed.js';

/** The list row each task shows, built whole from its detail (not by the list's reader). */
async function rowsById(t: TestApp): Promise<Map<number, Row>> {
  const ids = t.kernel.services.store.db.prepare('SELECT id FROM tasks').pluck().all() as number[];
  const out = new Map<number, Row>();
  for (const id of ids) {
    const detail = await t.json<Row>('GET', `/v1/tasks/${id}`);
    for (const k of DETAIL_ONLY) delete detail[k];
    out.set(id, detail);
  }
  return out;
}

describe('GET /v1/tasks walked page by page', () => {
  it("sends JSON.stringify's bytes of the rows built whole, for every query form and page size", async () => {
    const t = await buildTestApp({ kernel: { startEngine: false } });
    const { a, b, loop } = await seedEveryKindOfRow(t);
    const db = t.kernel.services.store.db;
    const whole = await rowsById(t);
    const forms = [
      '',
      'archived=all',
      'archived=true',
      'state=done',
      'state=blocked',
      `project_id=${a}`,
      `project_id=${b}&archived=all`,
      `project_id=${a}&state=done`,
      'include_children=true',
      `parent_id=${loop}`,
    ];
    let pages = 0;
    for (const form of forms)
      for (const limit of [3, 1000]) {
        let cursor: string | undefined;
        const seen: number[] = [];
        do {
          const url = `/v1/tasks?${form}${form ? '&' : ''}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
          const res = await t.api('GET', url);
          expect(res.statusCode, url).toBe(200);
          expect(res.headers['content-type'], url).toBe('application/json; charset=utf-8');
          const bytes = res.rawPayload;
          expect(Number(res.headers['content-length']), url).toBe(bytes.length);
          const ids = (JSON.parse(bytes.toString('utf8')) as Row[]).map((r) => r.id);
          const expected = Buffer.from(JSON.stringify(ids.map((id) => whole.get(id))), 'utf8');
          expect(bytes.equals(expected), url).toBe(true);
          // The library's rows (MCP, the CLI) are the same rows.
          const q = Object.fromEntries(new URLSearchParams(url.slice(url.indexOf('?') + 1)));
          const lib = t.kernel.services.engine.list({
            ...q,
            limit: Number(q.limit),
            ...(q.cursor ? { cursor: Number(q.cursor) } : {}),
            ...(q.project_id ? { project_id: Number(q.project_id) } : {}),
            ...(q.parent_id ? { parent_id: Number(q.parent_id) } : {}),
          } as Parameters<typeof t.kernel.services.engine.list>[0]);
          expect(Buffer.from(JSON.stringify(lib.rows), 'utf8').equals(bytes), url).toBe(true);
          cursor = res.headers['x-next-cursor'] as string | undefined;
          expect(cursor ?? null, url).toBe(
            lib.next_cursor === null ? null : String(lib.next_cursor),
          );
          if (cursor) expect(Number(cursor), url).toBe(ids.at(-1));
          seen.push(...ids);
          pages++;
        } while (cursor);
        expect(new Set(seen).size, `${form} limit ${limit}`).toBe(seen.length);
      }
    expect(pages).toBeGreaterThan(50);
    // Rows far larger than a page usually is: two-byte text of 1.4 MB each, so a page of them
    // outgrows the body's first scratch buffer and then the size it keeps between bodies; the
    // pages after them are still exact.
    const big = db
      .prepare('SELECT id FROM tasks WHERE title LIKE ? ORDER BY id LIMIT 4')
      .pluck()
      .all('plain %') as number[];
    for (const [i, id] of big.entries())
      db.prepare('UPDATE tasks SET description = ? WHERE id = ?').run(
        `${i} — ${'déjà vu, 中文 🚀 '.repeat(60_000)}`,
        id,
      );
    for (const id of big) {
      const detail = await t.json<Row>('GET', `/v1/tasks/${id}`);
      for (const k of DETAIL_ONLY) delete detail[k];
      whole.set(id, detail);
    }
    const expectPage = async (url: string) => {
      const bytes = (await t.api('GET', url)).rawPayload;
      const ids = (JSON.parse(bytes.toString('utf8')) as Row[]).map((r) => r.id);
      expect(bytes.equals(Buffer.from(JSON.stringify(ids.map((id) => whole.get(id))))), url).toBe(
        true,
      );
      return { bytes, ids };
    };
    const all = await expectPage('/v1/tasks?archived=all&include_children=true&limit=1000');
    expect(all.bytes.length).toBeGreaterThan(5 * 1024 * 1024);
    expect(all.ids).toEqual([...whole.keys()].sort((x, y) => y - x));
    expect((await expectPage('/v1/tasks?limit=3')).ids).toHaveLength(3);
    expect((await expectPage(`/v1/tasks?project_id=${a}&limit=1000`)).ids.length).toBeGreaterThan(
      3,
    );
  });

  it('an empty page is []', async () => {
    const t = await buildTestApp({ kernel: { startEngine: false } });
    for (const url of ['/v1/tasks', '/v1/tasks?archived=all&limit=1000', '/v1/tasks?parent_id=1']) {
      const res = await t.api('GET', url);
      expect(res.statusCode, url).toBe(200);
      expect(res.rawPayload.toString('utf8'), url).toBe('[]');
      expect(res.headers['content-length'], url).toBe('2');
      expect(res.headers['x-next-cursor'], url).toBeUndefined();
    }
  });
});
