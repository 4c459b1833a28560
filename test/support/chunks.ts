/** `bytes` cut at the given places (taken modulo its length, deduplicated), as a pipe might deliver it. */
export function cutAt(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => (bytes.length ? c % bytes.length : 0)))].sort(
    (a, b) => a - b,
  );
  const chunks: Buffer[] = [];
  let from = 0;
  for (const c of at) {
    chunks.push(bytes.subarray(from, c));
    from = c;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}
