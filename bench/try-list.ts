import { cleanup, makeRepo, prepare, QUIET_CONFIG, startInProcess, tempRoot } from './lib/env.js';
import { seedHistory } from './lib/seed.js';
import { median, p99 } from './lib/stats.js';

const root = tempRoot();
const repo = makeRepo(root);
const paths = prepare(root, QUIET_CONFIG);
seedHistory(paths, repo, { tasks: 10000, runsPerTask: 10, events: 1000 });
const { daemon } = await startInProcess(paths);
const app = daemon.kernel.app;
const token = daemon.kernel.services.daemon.token;
for (const path of ['/v1/tasks', '/v1/tasks/5000', '/v1/health']) {
  const ms: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    const r = await app.inject({
      method: 'GET',
      url: path,
      headers: { host: '127.0.0.1', authorization: `Bearer ${token}` },
    });
    if (r.statusCode !== 200) throw new Error(r.body);
    ms.push(performance.now() - t);
  }
  console.log(path, median(ms).toFixed(2), p99(ms).toFixed(2));
}
await daemon.stop();
cleanup();
