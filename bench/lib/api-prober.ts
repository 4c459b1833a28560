/**
 * A worker thread that asks the daemon `GET /v1/health` and `GET /v1/tasks` in turn every few
 * milliseconds and records each answer's latency: the API's responsiveness while something heavy
 * runs, measured on an event loop of its own so the bench's other clients cannot delay it.
 */
import { parentPort, workerData } from 'node:worker_threads';

interface Start {
  url: string;
  token: string;
  intervalMs: number;
}

if (parentPort) {
  const port = parentPort;
  const { url, token, intervalMs } = workerData as Start;
  let stop = false;
  port.on('message', () => {
    stop = true;
  });
  const ms: number[] = [];
  void (async () => {
    for (let i = 0; !stop; i++) {
      const path = i % 2 ? '/v1/tasks' : '/v1/health';
      const t0 = performance.now();
      try {
        const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        ms.push(performance.now() - t0);
      } catch {
        ms.push(Number.POSITIVE_INFINITY);
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
    port.postMessage(ms);
  })();
}
