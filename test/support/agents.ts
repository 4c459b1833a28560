/**
 * Helpers for tests that run agent steps through the daemon: config pointing each adapter at its
 * fake CLI (test/fixtures/fake-agents), scenario knobs passed through the environment policy's
 * `set` (so each test app drives its own fakes), one-step agent workflows, and step-run readers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestApp } from './app.js';
import type { StepJson } from './tasks.js';

export const FAKE_AGENTS_DIR = join(import.meta.dirname, '..', 'fixtures', 'fake-agents');

export const FAKE_BINARIES = {
  claude: join(FAKE_AGENTS_DIR, 'claude'),
  codex: join(FAKE_AGENTS_DIR, 'codex'),
  cursor: join(FAKE_AGENTS_DIR, 'cursor-agent'),
} as const;

export type FakeAgent = keyof typeof FAKE_BINARIES;

/** YAML for config.yaml: the fakes as agent paths, `knobs` in `environment.set`, then `extra`. */
export function agentConfig(
  knobs: Record<string, string> = {},
  extra = '',
  paths: Partial<Record<string, string>> = FAKE_BINARIES,
): string {
  const lines = ['agents:'];
  for (const [name, path] of Object.entries(paths)) lines.push(`  ${name}:`, `    path: ${path}`);
  const env = Object.entries(knobs);
  if (env.length > 0) {
    lines.push('environment:', '  set:');
    for (const [k, v] of env) lines.push(`    ${k}: ${JSON.stringify(v)}`);
  }
  return `${lines.join('\n')}\n${extra}`;
}

/** A one-step agent workflow; `step` adds keys to the step (YAML lines, indented by the caller). */
export function agentWorkflow(name: string, step: Record<string, unknown> = {}): string {
  const keys = { id: 'work', type: 'agent', prompt: 'Do {{.Task.Title}}', ...step };
  const body = Object.entries(keys)
    .map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`)
    .join('\n')
    .replace(/^ {4}/, '  - ');
  return `name: ${name}\nsteps:\n${body}\n`;
}

export async function stepRuns(t: TestApp, taskId: number): Promise<StepJson[]> {
  return t.json<StepJson[]>('GET', `/v1/tasks/${taskId}/steps`);
}

/** The transcript of a step run as parsed JSON lines. */
export async function transcript(
  t: TestApp,
  taskId: number,
  runId: number,
): Promise<Array<Record<string, unknown>>> {
  const res = await t.api('GET', `/v1/tasks/${taskId}/steps/${runId}/transcript`);
  if (res.statusCode !== 200) throw new Error(`transcript → ${res.statusCode} ${res.body}`);
  return res.body
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The argv/cwd/stdin records a fake wrote to its RECORD file. */
export function records(file: string): Array<Record<string, unknown>> {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  } catch {
    return [];
  }
}

/** The prompts the fake claude was given, in order (input mode: the user line's text). */
export function prompts(log: string): string[] {
  const out: string[] = [];
  for (const r of records(log)) {
    if (r.event !== 'stdin') continue;
    for (const line of String(r.data).split('\n')) {
      try {
        const msg = JSON.parse(line) as {
          type?: string;
          message?: { content?: Array<{ text?: string }> };
        };
        if (msg.type === 'user') out.push((msg.message?.content ?? []).map((c) => c.text).join(''));
      } catch {}
    }
  }
  return out;
}

/** The payloads of the agent.quota_changed events, oldest first. */
export function quotaEvents(t: TestApp): Array<Record<string, unknown>> {
  return (
    t.kernel.services.store.db
      .prepare("SELECT payload FROM events WHERE kind = 'agent.quota_changed' ORDER BY id")
      .all() as Array<{ payload: string }>
  ).map((r) => JSON.parse(r.payload) as Record<string, unknown>);
}
