// Decision 234: admission reads a base's upstream from the repository's config file instead of
// running `git for-each-ref`. Whatever the file holds, the answer is git's own — read from the
// file when it answers plainly, asked of git otherwise.
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { configUpstream } from '../../../kernel/git/config-file.js';
import { branchFacts, knownUpstreamOf, upstreamOf } from '../../../kernel/git/index.js';
import { gitRepo } from '../../support/git.js';
import { tempDir } from '../../support/tmp.js';

/** What `git for-each-ref` says (the reader's reference), as knownUpstreamOf answers it. */
async function gitSays(repo: string, branch: string) {
  return (await branchFacts(repo, [branch])).get(branch)?.upstream ?? null;
}

/** No global or system config, whatever the machine has: only the repository's file speaks. */
function isolated() {
  const before = { global: process.env.GIT_CONFIG_GLOBAL, system: process.env.GIT_CONFIG_NOSYSTEM };
  const empty = join(tempDir(), 'empty.gitconfig');
  writeFileSync(empty, '');
  process.env.GIT_CONFIG_GLOBAL = empty;
  process.env.GIT_CONFIG_NOSYSTEM = '1';
  onTestFinished(() => {
    for (const [key, value] of [
      ['GIT_CONFIG_GLOBAL', before.global],
      ['GIT_CONFIG_NOSYSTEM', before.system],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });
}

describe('a branch upstream read from .git/config', () => {
  it('answers as git does for every way a config spells it, or leaves it to git', async () => {
    isolated();
    const repo = gitRepo();
    for (const b of ['plain', 'dotted', 'self', 'half', 'spaced', 'Case', 'nested/name', 'twice'])
      repo.git('branch', b);
    repo.git('remote', 'add', 'origin', tempDir());
    repo.git('config', 'branch.plain.remote', 'origin');
    repo.git('config', 'branch.plain.merge', 'refs/heads/main');
    repo.git('config', 'branch.self.remote', '.');
    repo.git('config', 'branch.self.merge', 'refs/heads/main');
    repo.git('config', 'branch.half.remote', 'origin');
    repo.git('config', 'branch.nested/name.remote', 'origin');
    repo.git('config', 'branch.nested/name.merge', 'refs/heads/x');
    repo.git('config', 'branch.Case.remote', 'origin');
    repo.git('config', 'branch.Case.merge', 'refs/heads/y');
    appendFileSync(
      join(repo.path, '.git', 'config'),
      [
        '[Branch "spaced"]  # a comment',
        '\tRemote   =   origin   ; trailing',
        '\tmerge=refs/heads/z',
        '[branch "case"]',
        '\tremote = elsewhere',
        '[branch "twice"]',
        '\tremote = origin',
        '[branch "twice"]',
        '\tmerge = refs/heads/twice',
        '',
      ].join('\n'),
    );
    const names = [
      'plain',
      'dotted',
      'self',
      'half',
      'spaced',
      'Case',
      'nested/name',
      'twice',
      'none',
    ];
    for (const n of names) {
      const read = configUpstream(repo.path, n);
      expect(read, n).not.toBeUndefined();
      expect(read, n).toEqual(await gitSays(repo.path, n));
      expect(await knownUpstreamOf(repo.path, n), n).toEqual(await gitSays(repo.path, n));
    }
    expect(configUpstream(repo.path, 'plain')).toEqual({
      remote: 'origin',
      ref: 'refs/heads/main',
    });
    expect(configUpstream(repo.path, 'spaced')).toEqual({ remote: 'origin', ref: 'refs/heads/z' });
  });

  it('leaves to git what the file cannot answer plainly, and git answers it', async () => {
    const cases: Array<[string, string]> = [
      ['quoted', '[branch "b"]\n\tremote = "origin"\n\tmerge = refs/heads/main\n'],
      ['continued', '[branch "b"]\n\tremote = ori\\\ngin\n\tmerge = refs/heads/main\n'],
      [
        'two merges',
        '[branch "b"]\n\tremote = origin\n\tmerge = refs/heads/a\n\tmerge = refs/heads/b\n',
      ],
      ['old header', '[branch.b]\n\tremote = origin\n\tmerge = refs/heads/main\n'],
      ['bare key', '[branch "b"]\n\trebase\n\tremote = origin\n\tmerge = refs/heads/main\n'],
    ];
    for (const [name, text] of cases) {
      const repo = gitRepo();
      repo.git('branch', 'b');
      repo.git('remote', 'add', 'origin', tempDir());
      appendFileSync(join(repo.path, '.git', 'config'), text);
      expect(configUpstream(repo.path, 'b'), name).toBeUndefined();
      // git config's own answer, as before decision 234 when the file cannot answer.
      expect(await knownUpstreamOf(repo.path, 'b'), name).toEqual(await upstreamOf(repo.path, 'b'));
    }
    // An include can carry branch settings from anywhere.
    const repo = gitRepo();
    repo.git('remote', 'add', 'origin', tempDir());
    const other = join(tempDir(), 'more.config');
    writeFileSync(other, '[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n');
    repo.git('config', 'include.path', other);
    expect(configUpstream(repo.path, 'main')).toBeUndefined();
    expect(await knownUpstreamOf(repo.path, 'main')).toEqual({
      remote: 'origin',
      ref: 'refs/heads/main',
    });
  });

  it('sees an edit at once, and leaves it to git while a global config has branch settings', async () => {
    isolated();
    const repo = gitRepo();
    expect(configUpstream(repo.path, 'main')).toBeNull();
    repo.git('config', 'branch.main.remote', 'origin');
    repo.git('config', 'branch.main.merge', 'refs/heads/trunk');
    expect(configUpstream(repo.path, 'main')).toEqual({
      remote: 'origin',
      ref: 'refs/heads/trunk',
    });
    const global = join(tempDir(), 'gitconfig');
    writeFileSync(global, '[branch "main"]\n\tmerge = refs/heads/other\n');
    const before = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = global;
    try {
      expect(configUpstream(repo.path, 'main')).toBeUndefined();
    } finally {
      if (before === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = before;
    }
  });
});
