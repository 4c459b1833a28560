import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Fixture {
  name: string;
  text: string;
}

const dir = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** The workflow corpus, read as bytes-as-text so CRLF and the BOM reach the editor untouched. */
export function loadFixtures(): Fixture[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => ({ name, text: readFileSync(dir + name, 'utf8') }));
}
