// Decision 180: one test recognizes a full disk in every shape a write path meets it, and no other
// fault: a Node errno, SQLite's code, a child's text (git, tar), and our own 507 refusal.
import { describe, expect, it } from 'vitest';
import { diskFullCode } from '../../../kernel/disk/index.js';
import { SvcError } from '../../../kernel/errors.js';

const errno = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('diskFullCode', () => {
  it.each([
    [errno('ENOSPC', 'ENOSPC: no space left on device, write'), 'ENOSPC'],
    [errno('EDQUOT', 'EDQUOT: disk quota exceeded, write'), 'EDQUOT'],
    [errno('SQLITE_FULL', 'database or disk is full'), 'SQLITE_FULL'],
    [new Error('fatal: could not write index: No space left on device'), 'ENOSPC'],
    ['error: unable to write file x: Disk quota exceeded', 'EDQUOT'],
    [new Error('wrapped', { cause: errno('ENOSPC', 'no space') }), 'ENOSPC'],
    [new SvcError('disk_full', 'the disk is full', { code: 'SQLITE_FULL' }), 'SQLITE_FULL'],
  ])('names %s as %s', (err, code) => {
    expect(diskFullCode(err)).toBe(code);
  });

  it.each([
    [errno('EIO', 'EIO: no space left on device, write')],
    [errno('SQLITE_CORRUPT', 'database disk image is malformed')],
    [errno('EACCES', 'permission denied')],
    [new Error('fatal: not a git repository')],
    [null],
    [undefined],
    [42],
  ])('leaves %s alone', (err) => {
    expect(diskFullCode(err)).toBeNull();
  });
});
