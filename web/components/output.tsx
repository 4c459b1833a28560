/**
 * A step run's output, live (issue 23 point 4, decision 145): the last 256 KiB of the chosen
 * run's transcript, then the task stream's live chunks for that run, nothing twice. The view
 * follows the newest run unless the reader picked one, and stays pinned to the bottom unless
 * they scrolled up.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { TaskDetail } from '../../shared/wire-types.js';
import type { Api } from '../api.js';
import { append, liveLines, type OutLine, transcriptLines } from '../lib/transcript.js';
import type { FrameBus } from './frame-bus.js';

const TAIL_BYTES = 256 * 1024;

export function OutputView({ api, task: t, bus }: { api: Api; task: TaskDetail; bus: FrameBus }) {
  const runs = (t.steps ?? []).filter((r) => r.has_transcript);
  const [picked, setPicked] = useState<number | null>(null);
  // A gate writes no output of its own: while one waits, the work before it is what to read.
  const runId =
    picked ?? (runs.filter((r) => r.step_type !== 'manual').at(-1) ?? runs.at(-1))?.id ?? null;
  const [lines, setLines] = useState<OutLine[]>([]);
  const box = useRef<HTMLPreElement>(null);
  const pinned = useRef(true);

  useEffect(() => {
    if (runId === null) {
      setLines([]);
      return;
    }
    let stopped = false;
    let readUpTo = -1;
    let held: Array<{ event?: string; data: Record<string, unknown> }> | null = [];
    const take = (event: string | undefined, data: Record<string, unknown>) => {
      const l = liveLines(event, data, runId, readUpTo);
      if (l.length > 0) setLines((prev) => append(prev, l));
    };
    const off = bus.listen((f) => {
      if (f.id !== undefined || !f.data) return;
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(f.data) as Record<string, unknown>;
      } catch {
        return;
      }
      if (held) held.push({ event: f.event, data });
      else take(f.event, data);
    });
    void (async () => {
      try {
        const { text, headers } = await api.text(`/v1/tasks/${t.id}/steps/${runId}/transcript`, {
          tail: TAIL_BYTES,
        });
        if (stopped) return;
        readUpTo = Number(headers.get('x-next-offset') ?? 0);
        setLines(transcriptLines(text, t.id));
      } catch {
        if (!stopped) setLines([]);
      } finally {
        const frames = held ?? [];
        held = null;
        for (const f of frames) take(f.event, f.data);
      }
    })();
    return () => {
      stopped = true;
      off();
    };
  }, [api, bus, runId, t.id]);

  useEffect(() => {
    const el = box.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [lines]);

  return (
    <div class="output">
      <div class="output-bar">
        <label>
          Run{' '}
          <select
            value={picked ?? ''}
            onChange={(e) => {
              const v = (e.currentTarget as HTMLSelectElement).value;
              setPicked(v ? Number(v) : null);
            }}
          >
            <option value="">Latest</option>
            {runs.map((r) => (
              <option value={r.id} key={r.id}>
                {r.step_id === '__repair' ? 'repair' : r.step_name} · attempt {r.attempt} ·{' '}
                {r.state}
              </option>
            ))}
          </select>
        </label>
      </div>
      <pre
        class="log"
        ref={box}
        data-testid="output"
        onScroll={(e) => {
          const el = e.currentTarget as HTMLElement;
          pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
      >
        {lines.length === 0 && (
          <span class="note">
            {runId === null ? 'No step has written output yet.' : 'No output from this run yet.'}
          </span>
        )}
        {lines.map((l, i) => (
          <span class={`l ${l.kind}`} key={i}>
            {l.text}
            {'\n'}
          </span>
        ))}
      </pre>
    </div>
  );
}
