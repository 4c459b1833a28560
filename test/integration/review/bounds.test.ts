// Issue 16 point 1: the diff is bounded (cut at a file boundary past 16 MiB, said in a header),
// runs git with argv only and none of the user's diff programs, and no git outlives a client
// that hangs up.
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIFF_LIMIT } from '../../../kernel/git/index.js';
import { buildTestApp, waitFor } from '../../support/app.js';
import { git } from '../../support/git.js';
import { listen } from '../../support/mcp.js';
import { diffOf, gatedTask, gateWorkflow, headers } from '../../support/review.js';
import { tempDir } from '../../support/tmp.js';

const LINE = 'a line of text long enough that a few of them fill a megabyte quickly enough\n';

describe('bounds', () => {
  it('cuts a diff over 16 MiB at a file boundary and says so', async () => {
    const t = await buildTestApp();
    // Three files of 6 MB each: two fit in 16 MiB, the third does not; one of 17 MB never fits.
    const fill = (name: string, bytes: number) =>
      `yes '${LINE.trim()}' | head -c ${bytes} > ${name}`;
    const run = [
      fill('big1.txt', 6_000_000),
      fill('big2.txt', 6_000_000),
      fill('big3.txt', 6_000_000),
      fill('huge.txt', 17_000_000),
    ].join(' && ');
    const { task } = await gatedTask(t, { big: gateWorkflow('big', run) }, 'big');
    const d = await diffOf(t, task.id);
    expect(d.status).toBe(200);
    expect(d.truncated).toBe('true');
    expect(headers(d.body)).toEqual([
      'diff --git a/big1.txt b/big1.txt',
      'diff --git a/big2.txt b/big2.txt',
    ]);
    expect(d.raw.length).toBeLessThanOrEqual(DIFF_LIMIT);
    expect(d.raw.length).toBeGreaterThan(12_000_000);
    // The second file is there whole, to its last line.
    expect(d.body.endsWith('\n\\ No newline at end of file\n')).toBe(true);

    const huge = await diffOf(t, task.id, '?path=huge.txt');
    expect(huge.truncated).toBe('true');
    expect(huge.body).toBe('');
    const small = await diffOf(t, task.id, '?path=big3.txt');
    expect(small.truncated).toBe('false');
    expect(headers(small.body)).toEqual(['diff --git a/big3.txt b/big3.txt']);
    // The stat lists every file: its own list is far from the bound.
    const stat = (await diffOf(t, task.id, '?stat=true')).json();
    expect(stat).toMatchObject({ truncated: false });
    expect((stat.files as unknown[]).length).toBe(4);
  });

  it('runs none of the user’s diff programs, pagers or colours, and treats hostile file names as names', async () => {
    const t = await buildTestApp();
    const marks = tempDir('svc-marks-');
    const run = [
      'echo evil > ./--output=pwned',
      "echo spaced > 'with space.txt'",
      'echo changed >> README.md',
      'echo text > notes.txt',
    ].join(' && ');
    const { repo, task } = await gatedTask(t, { hostile: gateWorkflow('hostile', run) }, 'hostile');
    const tattle = join(marks, 'tattle.sh');
    writeFileSync(tattle, `#!/bin/sh\ntouch ${join(marks, 'ran')}-$(basename "$0")\n`, {
      mode: 0o755,
    });
    for (const [k, v] of [
      ['diff.external', tattle],
      ['diff.tc.textconv', tattle],
      ['core.pager', tattle],
      ['pager.diff', tattle],
      ['color.ui', 'always'],
      ['color.diff', 'always'],
      ['diff.noprefix', 'true'],
      ['diff.mnemonicPrefix', 'true'],
      ['diff.relative', 'true'],
    ])
      git(repo.path, 'config', k as string, v as string);
    writeFileSync(join(task.worktree_path as string, '.gitattributes'), '*.txt diff=tc\n');
    const d = await diffOf(t, task.id);
    expect(d.status).toBe(200);
    expect(d.body).not.toContain('\u001b[');
    expect(headers(d.body)).toEqual([
      'diff --git a/--output=pwned b/--output=pwned',
      'diff --git a/.gitattributes b/.gitattributes',
      'diff --git a/README.md b/README.md',
      'diff --git a/notes.txt b/notes.txt',
      'diff --git a/with space.txt b/with space.txt',
    ]);
    expect(d.body).toContain('+text');
    expect(readdirSync(marks)).toEqual(['tattle.sh']);
    expect(readdirSync(task.worktree_path as string)).not.toContain('pwned');
    const one = await diffOf(t, task.id, `?path=${encodeURIComponent('--output=pwned')}`);
    expect(headers(one.body)).toEqual(['diff --git a/--output=pwned b/--output=pwned']);
  });
});

/** Processes whose command line mentions `marker` or whose working directory is `dir`. */
function processesOf(marker: string, dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {}
      if (cmd.includes(marker) || cwd === dir) found.push(`${pid} ${cmd}`);
    } catch {}
  }
  return found;
}

describe.skipIf(process.platform !== 'linux')('a client that hangs up', () => {
  it('takes its git process down with it, and the filters git started', async () => {
    const t = await buildTestApp();
    const { repo, task } = await gatedTask(
      t,
      { slow: gateWorkflow('slow', 'echo changed >> data.slow && echo more >> README.md') },
      'slow',
    );
    // A clean filter that never finishes: git runs it to read the changed file.
    const dir = tempDir('svc-slow-');
    const script = join(dir, 'slow-filter.sh');
    writeFileSync(script, '#!/bin/sh\nwhile :; do sleep 1; done\n', { mode: 0o755 });
    git(repo.path, 'config', 'filter.slow.clean', script);
    const worktree = task.worktree_path as string;
    const url = await listen(t);
    const req = request(`${url}/v1/tasks/${task.id}/diff`, {
      headers: { authorization: `Bearer ${t.token}`, host: '127.0.0.1' },
    });
    req.on('error', () => {});
    req.end();
    await waitFor(() => processesOf(script, worktree).length > 0, 15_000);
    req.destroy();
    await waitFor(() => processesOf(script, worktree).length === 0, 15_000);
    expect(processesOf(script, worktree)).toEqual([]);
  });
});
