import { describe, expect, it } from 'vitest';
import { assertAscii } from '../../../scripts/ascii-check.js';

// The launcher reads an ASCII bundle as a one-byte string (decision 249); the build refuses any
// other bundle and says where the first wider character is.
describe('the bundle ASCII check', () => {
  it('passes plain ASCII', () => {
    expect(() => assertAscii(Buffer.from('const a = /x/;\n'), 'svc.cjs')).not.toThrow();
  });

  it('refuses a character past ASCII, naming the file, the byte and what surrounds it', () => {
    const bytes = Buffer.from('const unit = /[0-9]+µs/;\n', 'utf8');
    expect(() => assertAscii(bytes, 'dist/svc.cjs')).toThrow(
      'dist/svc.cjs is not ASCII at byte 20 (write the character as a \\u escape): …const unit = /[0-9]+µs/;\n…',
    );
  });
});
