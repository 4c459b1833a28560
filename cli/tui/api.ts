/**
 * The board's view of the daemon: the routes it reads and acts through (SPEC §4) and nothing
 * else. Routes that land with other features (`/v1/agents`, `/v1/resolve`, task chats) are used
 * when the daemon has them; a 404 or 405 from an older daemon degrades to a fallback or a
 * message instead of an error (decision 144).
 */
import type {
  AgentRecord,
  DiffStat,
  Project,
  ResolveResult,
  TaskDetail,
  TaskRow,
  WorkflowDefinition,
  WorkflowRow,
} from '../../shared/wire-types.js';
import { ApiError, type Client } from '../client.js';
import { readTranscriptPages } from '../transcript.js';
import type { Call } from './actions.js';
import type { ReviewNote } from './diff.js';
import type { TuiSettings } from './model.js';

export function isMissingRoute(err: unknown): boolean {
  return err instanceof ApiError && (err.status === 404 || err.status === 405);
}

export interface AgentsView {
  agents: AgentRecord[];
  /** Where the records came from: `agents` (full records with quota) or `info` (the fallback). */
  source: 'agents' | 'info';
}

export class TuiApi {
  constructor(readonly client: Client) {}

  async settings(): Promise<TuiSettings> {
    const c = await this.client.get<{
      tui?: {
        board?: { group_by?: string[] };
        hyperlinks?: boolean;
        keys?: Record<string, string>;
      };
    }>('/v1/config');
    return {
      group_by: c.tui?.board?.group_by ?? ['project', 'workflow'],
      hyperlinks: c.tui?.hyperlinks ?? false,
      keys: c.tui?.keys ?? {},
    };
  }

  /**
   * Every non-archived task with its lanes, newest first: all of them, page after page, so a task
   * waiting on the user is never past the first page and the header's counts are true at any size
   * (issue 19 point 13).
   */
  tasks(): Promise<TaskRow[]> {
    return this.client.allTasks<TaskRow>({ include_children: 'true' });
  }

  task(id: number): Promise<TaskDetail> {
    return this.client.get<TaskDetail>(`/v1/tasks/${id}`);
  }

  /**
   * The last `bytes` of a step run's transcript, normalized (an agent's stream as events), and
   * where live output continues: pages are followed through `X-Next-Offset` to the end, keeping
   * only the last `keep` lines (decision 207).
   */
  async transcriptTail(
    taskId: number,
    runId: number,
    bytes = 16 * 1024,
    keep = 500,
  ): Promise<{ text: string; nextOffset: number } | null> {
    let kept: string[] = [];
    const r = await readTranscriptPages(
      this.client,
      `/v1/tasks/${taskId}/steps/${runId}/transcript`,
      { format: 'events', tail: bytes },
      (page) => {
        kept = [...kept, ...page.lines].slice(-keep);
      },
    );
    if (!r) return null;
    return { text: kept.map((l) => `${l}\n`).join(''), nextOffset: r.offset };
  }

  /** Agent records with quota; `/v1/info`'s agent rows when `/v1/agents` is not there. */
  async agents(): Promise<AgentsView> {
    try {
      const r = await this.client.get<{ agents: AgentRecord[] }>('/v1/agents');
      return { agents: r.agents, source: 'agents' };
    } catch (err) {
      if (!isMissingRoute(err)) throw err;
      const info = await this.client.get<{ agents?: AgentRecord[] }>('/v1/info');
      return {
        agents: (info.agents ?? []).map((a) => ({ ...a, quota: a.quota ?? null })),
        source: 'info',
      };
    }
  }

  projects(): Promise<Project[]> {
    return this.client.get<Project[]>('/v1/projects');
  }

  async workflows(projectId: number): Promise<WorkflowRow[]> {
    const r = await this.client.get<{ workflows: WorkflowRow[] }>('/v1/workflows', {
      project_id: projectId,
    });
    return r.workflows;
  }

  definition(name: string, projectId: number): Promise<WorkflowDefinition> {
    return this.client.get<WorkflowDefinition>('/v1/workflows/definition', {
      name,
      project_id: projectId,
    });
  }

  /** What a candidate task would run with; null when the daemon has no `/v1/resolve`. */
  async resolve(body: Record<string, unknown>): Promise<ResolveResult | null> {
    try {
      return await this.client.post<ResolveResult>('/v1/resolve', body);
    } catch (err) {
      if (isMissingRoute(err)) return null;
      throw err;
    }
  }

  createTask(body: Record<string, unknown>): Promise<TaskRow & { warnings?: string[] }> {
    return this.client.post('/v1/tasks', body);
  }

  act(call: Call): Promise<Record<string, unknown>> {
    return this.client.post<Record<string, unknown>>(call.path, call.body);
  }

  /** The files a task changed, with their +/- counts (issue 16). */
  diffStat(taskId: number): Promise<DiffStat> {
    return this.client.get<DiffStat>(`/v1/tasks/${taskId}/diff`, { stat: 'true' });
  }

  /** One file's diff text. */
  async diffFile(taskId: number, path: string): Promise<string> {
    const res = await this.client.raw('GET', `/v1/tasks/${taskId}/diff`, { query: { path } });
    const text = await res.text();
    if (!res.ok) {
      const e = (JSON.parse(text || '{}') as { error?: { code?: string; message?: string } }).error;
      throw new ApiError(res.status, e?.code ?? 'unknown', e?.message ?? `HTTP ${res.status}`);
    }
    return text;
  }

  /** Sends line comments back to the task's agent (`POST /v1/tasks/{id}/review`). */
  review(
    taskId: number,
    body: { comments: ReviewNote[] },
  ): Promise<{ state?: string; review: { action: string } }> {
    return this.client.post(`/v1/tasks/${taskId}/review`, body);
  }
}
