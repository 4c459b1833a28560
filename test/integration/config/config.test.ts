// SPEC §2.10 reload semantics and PATCH /v1/config, on real files.
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../kernel/config/index.js';
import { buildTestApp, waitFor } from '../../support/app.js';
import { tempDir } from '../../support/tmp.js';

const USER_FILE = `# my settings, keep this comment
max_parallel_tasks: 2 # inline note

# timeouts I like
defaults:
  agent_timeout: 2h
  command_timeout: 10m
log_level: info
`;

describe('first start', () => {
  it('writes a commented config.yaml (0600) in a 0700 directory and serves every key', async () => {
    const t = await buildTestApp();
    const text = readFileSync(t.paths.configFile, 'utf8');
    expect(text).toContain('# svc configuration');
    expect(statSync(t.paths.configFile).mode & 0o777).toBe(0o600);
    expect(statSync(t.paths.configDir).mode & 0o777).toBe(0o700);
    expect(statSync(t.paths.dataDir).mode & 0o777).toBe(0o700);
    const config = await t.json<Record<string, unknown>>('GET', '/v1/config');
    for (const key of [
      'listen',
      'max_parallel_tasks',
      'max_parallel_chats',
      'defaults',
      'environment',
      'tui',
      'backup',
      'container',
      'notify',
      'mcp',
      'forge',
      'update',
      'plugins',
    ]) {
      expect(config).toHaveProperty(key);
    }
    expect(config.max_parallel_chats).toBe(3);
  });

  it('re-tightens loosened modes on every start', async () => {
    const root = tempDir();
    const first = await buildTestApp({ root, keepOpen: true });
    await first.close();
    chmodSync(first.paths.configFile, 0o644);
    chmodSync(first.paths.configDir, 0o755);
    chmodSync(first.paths.tokenFile, 0o644);
    const second = await buildTestApp({ root });
    expect(statSync(second.paths.configFile).mode & 0o777).toBe(0o600);
    expect(statSync(second.paths.configDir).mode & 0o777).toBe(0o700);
    expect(statSync(second.paths.tokenFile).mode & 0o777).toBe(0o600);
    expect(second.token).toBe(first.token);
  });

  it('refuses to start on an invalid file, naming the key', async () => {
    await expect(buildTestApp({ config: 'max_parallel_tasks: 0\n' })).rejects.toThrow(ConfigError);
    await expect(buildTestApp({ config: 'max_parallel_tasks: 0\n' })).rejects.toThrow(
      /max_parallel_tasks/,
    );
    await expect(buildTestApp({ config: 'tui:\n  colour: red\n' })).rejects.toThrow(/tui\.colour/);
    await expect(buildTestApp({ config: 'listen: 0.0.0.0:80\n' })).rejects.toThrow(/listen/);
    await expect(buildTestApp({ config: 'max_parallel_tasks: [\n' })).rejects.toThrow(
      /does not parse/,
    );
  });

  it('keeps built-in defaults for omitted keys', async () => {
    const t = await buildTestApp({ config: 'max_parallel_tasks: 7\n' });
    const c = await t.json<{ max_parallel_tasks: number; defaults: { agent_timeout: string } }>(
      'GET',
      '/v1/config',
    );
    expect(c.max_parallel_tasks).toBe(7);
    expect(c.defaults.agent_timeout).toBe('60m');
  });
});

describe('PATCH /v1/config', () => {
  it('applies before answering, preserves comments and key order, and announces the change', async () => {
    const t = await buildTestApp({ config: USER_FILE });
    const res = await t.api('PATCH', '/v1/config', {
      max_parallel_tasks: 6,
      defaults: { agent_timeout: '90m' },
      debug: true,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.max_parallel_tasks).toBe(6);
    expect(body.defaults).toEqual({
      agent_timeout: '90m',
      command_timeout: '10m',
      input_timeout: '24h',
    });
    expect(t.kernel.services.config.current().debug).toBe(true);
    const text = readFileSync(t.paths.configFile, 'utf8');
    expect(text).toContain('# my settings, keep this comment');
    expect(text).toContain('# timeouts I like');
    expect(text).toContain('# inline note');
    expect(text.indexOf('max_parallel_tasks')).toBeLessThan(text.indexOf('defaults:'));
    expect(text).toMatch(/agent_timeout: 90m/);
    expect(statSync(t.paths.configFile).mode & 0o777).toBe(0o600);
    const events = t.kernel.services.events.query({
      afterId: 0,
      limit: 10,
      kinds: ['config.changed'],
    });
    expect(events.map((e) => e.payload)).toEqual([{ source: 'api' }]);
  });

  it.each([
    [{ max_parallel_tasks: 0 }, 'max_parallel_tasks'],
    [{ defaults: { agent_timeout: 'forever' } }, 'defaults.agent_timeout'],
    [{ no_such_key: true }, 'no_such_key'],
    [{ tui: { board: { group_by: ['x'] } } }, 'tui.board.group_by[0]'],
    [{ listen: '0.0.0.0:1' }, 'listen'],
  ])('refuses %j with 400 naming the key, leaving the file byte-identical', async (patch, key) => {
    const t = await buildTestApp({ config: USER_FILE });
    const before = readFileSync(t.paths.configFile);
    const res = await t.api('PATCH', '/v1/config', patch);
    expect(res.statusCode).toBe(400);
    const err = res.json().error;
    expect(err.code).toBe('validation_failed');
    expect(err.message).toContain(key);
    expect(readFileSync(t.paths.configFile).equals(before)).toBe(true);
    expect(t.kernel.services.config.current().max_parallel_tasks).toBe(2);
  });

  it('changes only the touched line, byte for byte', async () => {
    const t = await buildTestApp({ config: USER_FILE });
    await t.json('PATCH', '/v1/config', { defaults: { command_timeout: '20m' } });
    const after = readFileSync(t.paths.configFile, 'utf8');
    expect(after).toBe(USER_FILE.replace('command_timeout: 10m', 'command_timeout: 20m'));
  });

  it('refuses a body that is not an object', async () => {
    const t = await buildTestApp();
    const res = await t.api('PATCH', '/v1/config', [1, 2]);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('validation_failed');
  });

  it('null removes a key so it falls back to its default', async () => {
    const t = await buildTestApp({ config: USER_FILE });
    const res = await t.api('PATCH', '/v1/config', { max_parallel_tasks: null });
    expect(res.json().max_parallel_tasks).toBe(3);
    expect(readFileSync(t.paths.configFile, 'utf8')).not.toMatch(/^max_parallel_tasks/m);
  });

  it('a changed listen is written but waits for a restart', async () => {
    const t = await buildTestApp({ config: USER_FILE });
    const res = await t.api('PATCH', '/v1/config', { listen: '127.0.0.1:7777' });
    expect(res.statusCode).toBe(200);
    expect(res.json().listen).toBe('127.0.0.1:0');
    expect(readFileSync(t.paths.configFile, 'utf8')).toContain('listen: 127.0.0.1:7777');
    expect(readFileSync(t.paths.logFile, 'utf8')).toContain('listen changed');
  });
});

describe('hot reload', () => {
  it('a valid edit is in force within a second; an invalid one is logged and the last good stays', async () => {
    const t = await buildTestApp({ config: USER_FILE });
    const svc = t.kernel.services.config;
    svc.watch();
    await new Promise((r) => setTimeout(r, 150));
    writeFileSync(
      t.paths.configFile,
      USER_FILE.replace('max_parallel_tasks: 2', 'max_parallel_tasks: 9'),
    );
    await waitFor(() => svc.current().max_parallel_tasks === 9, 1000);

    writeFileSync(
      t.paths.configFile,
      USER_FILE.replace('max_parallel_tasks: 2', 'max_parallel_tasks: -4'),
    );
    await waitFor(
      () => readFileSync(t.paths.logFile, 'utf8').includes('config edit rejected'),
      2000,
    );
    expect(svc.current().max_parallel_tasks).toBe(9);

    writeFileSync(t.paths.configFile, `${USER_FILE}listen: 127.0.0.1:9999\n`);
    await waitFor(() => svc.current().max_parallel_tasks === 2, 1000);
    expect(svc.current().listen).toBe('127.0.0.1:0');
    await waitFor(() => readFileSync(t.paths.logFile, 'utf8').includes('listen changed'), 1000);
  });

  it('an edit made while the watcher is still starting is not lost', async () => {
    const t = await buildTestApp({ config: USER_FILE });
    const svc = t.kernel.services.config;
    svc.watch();
    // Before chokidar's first scan ends: it reports this as part of the initial state, i.e. not.
    writeFileSync(
      t.paths.configFile,
      USER_FILE.replace('max_parallel_tasks: 2', 'max_parallel_tasks: 7'),
    );
    await waitFor(() => svc.current().max_parallel_tasks === 7, 2000);
  });
});
