/** Small renderings shared by the board's views: money, durations, times. Pure. */

/** `$0.12`, `<$0.01`, or `—` when nothing reported a cost (null is not zero). */
export function money(cost: number | null | undefined): string {
  if (cost === null || cost === undefined) return '—';
  if (cost > 0 && cost < 0.01) return '<$0.01';
  return `$${cost.toFixed(2)}`;
}

/** `45s`, `12m`, `3h05m`, `2d04h` between two instants (until now while still open). */
export function span(fromIso: string | null, toIso: string | null, now = Date.now()): string {
  if (!fromIso) return '';
  const from = Date.parse(fromIso);
  const to = toIso ? Date.parse(toIso) : now;
  if (Number.isNaN(from) || Number.isNaN(to)) return '';
  const s = Math.max(0, Math.round((to - from) / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, '0')}h`;
}

/** `14:05` today, `Nov 23 14:05` another day, in the browser's time zone. */
export function clock(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  if (d.toDateString() === new Date(now).toDateString()) return hm;
  const month = d.toLocaleString('en', { month: 'short' });
  return `${month} ${d.getDate()} ${hm}`;
}

/** A reported window that named no reset carries the zero time (SPEC §2.4): not a time. */
export function isZeroTime(iso: string | null | undefined): boolean {
  if (!iso) return true;
  const t = Date.parse(iso);
  return Number.isNaN(t) || new Date(t).getUTCFullYear() < 1971;
}

/** `1.2k` tokens. */
export function count(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}
