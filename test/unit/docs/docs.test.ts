// Issue 12 point 3: docs a newcomer can follow stay true to the code. Every relative link and
// anchor resolves; the board's key table is the one the daemon enforces; the concepts name every
// task state; every `svc …` command the guides show exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findCommand } from '../../../cli/index.js';
import { TASK_STATES } from '../../../kernel/task-states.js';
import { DEFAULT_TUI_KEYS, TUI_OPERATIONS } from '../../../shared/tui-keys.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...readdirSync(join(ROOT, 'docs', 'decisions'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/decisions/${f}`),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = (m[1] as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Markdown links outside code: `[text](target)`. */
function links(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
}

describe('the documentation', () => {
  it('names the pages the issue asks for, linked from the README', () => {
    const readme = read('README.md');
    for (const page of [
      'docs/getting-started.md',
      'docs/concepts.md',
      'docs/workflows.md',
      'docs/configuration.md',
      'docs/api.md',
      'docs/cli.md',
      'docs/adding-an-agent.md',
      'docs/adding-a-step-type.md',
      'docs/troubleshooting.md',
      'docs/security.md',
      'docs/tui.md',
      'docs/web.md',
    ]) {
      expect(existsSync(join(ROOT, page)), page).toBe(true);
      expect(readme, page).toContain(`](${page})`);
    }
  });

  for (const doc of DOCS) {
    it(`${doc}: every relative link and anchor resolves`, () => {
      const text = read(doc);
      for (const target of links(text)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? join(ROOT, doc) : resolve(dirname(join(ROOT, doc)), path);
        expect(existsSync(file), `${doc} links to ${target}`).toBe(true);
        if (anchor && file.endsWith('.md'))
          expect([...anchors(readFileSync(file, 'utf8'))], `${doc} links to ${target}`).toContain(
            anchor,
          );
      }
    });
  }

  it('tui.md lists every operation with the default key the daemon enforces', () => {
    const rows = new Map<string, string>();
    for (const m of read('docs/tui.md').matchAll(/^\| `([a-z_]+)` \| `([^`]+)` \|/gm))
      rows.set(m[1] as string, m[2] as string);
    expect(Object.fromEntries(rows)).toEqual({ ...DEFAULT_TUI_KEYS });
    expect([...rows.keys()]).toEqual([...TUI_OPERATIONS]);
  });

  it('concepts.md names every task state', () => {
    const text = read('docs/concepts.md');
    for (const s of TASK_STATES) expect(text, s).toContain(`| \`${s}\` |`);
  });

  it('every `svc …` command the guides show exists', () => {
    for (const doc of [
      'README.md',
      'docs/getting-started.md',
      'docs/troubleshooting.md',
      'docs/tui.md',
      'docs/web.md',
      'docs/concepts.md',
      'docs/security.md',
      'docs/adding-a-step-type.md',
    ]) {
      const text = read(doc);
      const code = [
        ...[...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1] as string),
        ...[...text.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map(
          (m) => m[1] as string,
        ),
      ];
      for (const snippet of code) {
        if (snippet.startsWith('svc:')) continue; // an error message the CLI prints
        for (const m of snippet.matchAll(/(?:^|[;&|(]\s*)svc((?: [a-z][a-z-]*)+)/gm)) {
          const words = (m[1] as string).trim().split(' ');
          expect(findCommand(words), `${doc}: svc ${words.join(' ')}`).not.toBeNull();
        }
      }
    }
  });
});
