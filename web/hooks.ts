/** Small hooks the views share: re-render on the live store, the hash route, a ticking clock. */
import { useEffect, useState } from 'preact/hooks';
import type { Live } from './live.js';

export function useLive(live: Live): number {
  const [, set] = useState(0);
  useEffect(() => live.subscribe(() => set(live.version)), [live]);
  return live.version;
}

export function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

/** Now, re-read every `ms` (elapsed times on cards). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

export function go(hash: string): void {
  location.hash = hash;
}
