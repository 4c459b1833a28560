/** Small text helpers for human output. */

/** `1536` → `1.5 KiB`; binary units like the config's sizes. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(v >= 10 ? 0 : 1)} ${units[i]}`;
}
