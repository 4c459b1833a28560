/** Order statistics for benchmark samples (nearest-rank, so a p99 is a sample that happened). */

export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

export const median = (samples: readonly number[]): number => quantile(samples, 0.5);
export const p99 = (samples: readonly number[]): number => quantile(samples, 0.99);

/** Milliseconds since an arbitrary origin, monotonic. */
export const now = (): number => performance.now();

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

export function fmtMb(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : '—';
}
