/**
 * The whole-list walk's baseline (decision 244): a bare Node server answering the very pages svc
 * answered (bodies, content types, cursors; the page chosen by its cursor), in a process of its
 * own as the daemon is. Run as `node bare-pages.js <pages.json>`; prints its port, then serves
 * until killed.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Page {
  body: string;
  type: string;
  cursor: string | null;
}

const file = process.argv[2];
if (file) {
  const pages = JSON.parse(readFileSync(file, 'utf8')) as Page[];
  const bodies = pages.map((p) => Buffer.from(p.body, 'utf8'));
  const byCursor = new Map<string, number>(pages.map((p, i) => [p.cursor ?? '', i + 1]));
  const server = createServer((req, res) => {
    const cursor = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor');
    const i = cursor === null ? 0 : (byCursor.get(cursor) ?? 0);
    const page = pages[i] as Page;
    res.setHeader('content-type', page.type);
    res.setHeader('content-length', (bodies[i] as Buffer).length);
    if (page.cursor) res.setHeader('x-next-cursor', page.cursor);
    res.end(bodies[i]);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
  });
}
