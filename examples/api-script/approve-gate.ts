/**
 * Driving svc's API from a script with nothing but `fetch` (docs/api.md): find the daemon, create
 * a task, follow its event stream, approve its gate when it gets there, and exit with its outcome.
 *
 *   node dist/examples/api-script/approve-gate.js <project id> <workflow> "<title>"
 *
 * It reads the port from {data_dir}/daemon.json and the token from {data_dir}/token, where
 * {data_dir} is $SVC_DATA_DIR, else $XDG_DATA_HOME/svc, else ~/.local/share/svc. Exit status:
 * 0 when the task is done, 1 when it stops any other way, 2 on bad arguments.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface Options {
  projectId: number;
  workflow: string;
  title: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

/** Where the daemon's files are (SPEC §5.3): the same rule the daemon uses. */
function dataDir(env: NodeJS.ProcessEnv): string {
  if (env.SVC_DATA_DIR) return env.SVC_DATA_DIR;
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'svc');
  return join(homedir(), '.local', 'share', 'svc');
}

/** One server-sent event: `id` only on durable events, `event` the kind, `data` JSON. */
interface Sse {
  id?: string;
  event?: string;
  data: Record<string, unknown>;
}

/** Reads SSE frames (blank-line separated; `:` lines are comments such as heartbeats). */
async function* frames(body: ReadableStream<Uint8Array>): AsyncGenerator<Sse> {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of body) {
    buf += decoder.decode(chunk, { stream: true });
    for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const f: { id?: string; event?: string; data?: string } = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const at = line.indexOf(':');
        const field = line.slice(0, at);
        const value = line.slice(at + 1).replace(/^ /, '');
        if (field === 'id' || field === 'event') f[field] = value;
        if (field === 'data') f.data = (f.data === undefined ? '' : `${f.data}\n`) + value;
      }
      if (f.data !== undefined)
        yield { id: f.id, event: f.event, data: JSON.parse(f.data) as Record<string, unknown> };
    }
  }
}

export async function approveGate(o: Options): Promise<{ taskId: number; state: string }> {
  const env = o.env ?? process.env;
  const log = o.log ?? ((line: string) => console.log(line));
  const dir = dataDir(env);
  const { port } = JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8')) as { port: number };
  const token = readFileSync(join(dir, 'token'), 'utf8').trim();
  const base = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    // Failures are {error: {code, message, details?}} (docs/errors.md): branch on code and details.
    if (!res.ok) {
      const e = json.error as { code: string; message: string };
      throw new Error(`${method} ${path}: ${res.status} ${e.code}: ${e.message}`);
    }
    return json;
  };

  // An Idempotency-Key makes a retried create return the same task instead of a second one.
  const createRes = await fetch(`${base}/v1/tasks`, {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': `approve-gate-${o.projectId}-${o.title}` },
    body: JSON.stringify({ project_id: o.projectId, workflow: o.workflow, title: o.title }),
  });
  const task = (await createRes.json()) as {
    id: number;
    state: string;
    error?: { message: string };
  };
  if (!createRes.ok) throw new Error(`create: ${task.error?.message}`);
  log(`created task ${task.id} (${task.state})`);

  // Last-Event-ID: 0 replays the task's history first, so nothing between the create and this
  // request is missed; then the stream goes live. Live output frames carry no id.
  const stream = await fetch(`${base}/v1/tasks/${task.id}/events`, {
    headers: {
      authorization: headers.authorization,
      accept: 'text/event-stream',
      'last-event-id': '0',
    },
  });
  if (!stream.ok || !stream.body) throw new Error(`events: ${stream.status}`);
  let state = task.state;
  for await (const f of frames(stream.body)) {
    if (f.event === 'command.output') log(`  | ${String(f.data.text)}`);
    if (f.event === 'step.started')
      log(`step ${String((f.data.payload as Record<string, unknown>).step_id)}`);
    if (f.event !== 'task.state_changed') continue;
    state = String((f.data.payload as Record<string, unknown>).to);
    log(`task ${task.id}: ${state}`);
    if (state === 'awaiting_gate') {
      const approved = await api('POST', `/v1/tasks/${task.id}/approve`);
      log(`approved (now ${String(approved.state)})`);
    }
    if (['done', 'blocked', 'aborted', 'archived'].includes(state)) break;
  }
  // Leaving the loop cancels the response body, which closes the stream.
  return { taskId: task.id, state };
}

async function main(argv: string[]): Promise<number> {
  const [project, workflow, title] = argv;
  if (!project || !/^\d+$/.test(project) || !workflow || !title) {
    console.error('usage: approve-gate <project id> <workflow> "<title>"');
    return 2;
  }
  const r = await approveGate({ projectId: Number(project), workflow, title });
  return r.state === 'done' ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error((err as Error).message);
      process.exitCode = 1;
    },
  );
}
