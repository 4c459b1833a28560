/**
 * The bundle is plain ASCII (decision 249): the launcher decodes an ASCII bundle as Latin-1, a
 * third faster than UTF-8 on every start, and one character past ASCII would also double the
 * string (esbuild escapes strings, not regexes). The build calls this on what it wrote.
 */
export function assertAscii(bytes: Uint8Array, file: string): void {
  const wide = bytes.findIndex((b) => b > 0x7f);
  if (wide < 0) return;
  const around = Buffer.from(bytes.subarray(Math.max(0, wide - 60), wide + 20)).toString('utf8');
  throw new Error(
    `${file} is not ASCII at byte ${wide} (write the character as a \\u escape): …${around}…`,
  );
}
