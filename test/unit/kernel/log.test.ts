import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileLogger, RotatingFile } from '../../../kernel/log/index.js';
import { tempDir } from '../../support/tmp.js';

describe('daemon log', () => {
  it('rotates past the size cap and keeps three old files', () => {
    const path = join(tempDir(), 'daemon.log');
    const f = new RotatingFile(path, 1000, 3);
    for (let i = 0; i < 50; i++) f.write(`${String(i).padStart(3, '0')} ${'x'.repeat(95)}\n`);
    f.close();
    expect(statSync(path).size).toBeLessThanOrEqual(1000);
    for (const n of [1, 2, 3]) expect(existsSync(`${path}.${n}`)).toBe(true);
    expect(existsSync(`${path}.4`)).toBe(false);
    expect(readFileSync(path, 'utf8')).toContain('049 ');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('writes structured JSON at the level asked and redacts secrets', () => {
    const path = join(tempDir(), 'daemon.log');
    const { logger, close } = createFileLogger(path, 'info');
    logger.debug('hidden');
    logger.info({ token: 'abc123', headers: { authorization: 'Bearer abc123' } }, 'hello');
    close();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0].msg).toBe('hello');
    expect(JSON.stringify(lines[0])).not.toContain('abc123');
  });
});
