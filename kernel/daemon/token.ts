/**
 * The API token at {data_dir}/token: 32 random bytes as 64 hex characters, mode 0600, created once
 * and stable across restarts so clients and scripts keep working. An empty or unreadable file is
 * replaced; a loosened mode is re-tightened on every start.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../fsutil.js';

export function loadOrCreateToken(file: string): string {
  if (existsSync(file)) {
    const token = readFileSync(file, 'utf8').trim();
    if (/^[A-Za-z0-9_-]{32,}$/.test(token)) {
      if (process.platform !== 'win32') chmodSync(file, 0o600);
      return token;
    }
  }
  const token = randomBytes(32).toString('hex');
  writeFileAtomic(file, `${token}\n`, 0o600);
  return token;
}
