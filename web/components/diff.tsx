/**
 * The diff review (issue 23 point 4, against the review routes of issue 16): the file tree with
 * +/- counts, the hunks drawn by diff2html side by side or unified, the whole task's changes or
 * one step run's (`run=`), and comments on lines, sent through `POST /v1/tasks/{id}/review` —
 * a follow-up when the task is done or aborted, reject-and-repair at a gate, composed by the
 * daemon exactly as for every other client. Drafts survive a reload of the tab.
 */
import { html as diffHtml, parse as parseDiff } from 'diff2html';
import { ColorSchemeType } from 'diff2html/lib-esm/types.js';
import { render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { DiffStat, TaskDetail, TaskRow } from '../../shared/wire-types.js';
import { type Api, ApiError } from '../api.js';
import {
  canSend,
  commentKey,
  fileTree,
  type LineComment,
  reviewAction,
  reviewBody,
  type Side,
  type TreeNode,
} from '../lib/review.js';

type Layout = 'side-by-side' | 'line-by-line';
/** Over this many changed lines the view draws one file at a time (`path=`). */
const WHOLE_DIFF_LINES = 4000;

interface Draft {
  comments: LineComment[];
  summary: string;
}

const draftKey = (taskId: number, run: number | null) => `svc.review.${taskId}.${run ?? 'all'}`;

function loadDraft(taskId: number, run: number | null): Draft {
  try {
    const d = JSON.parse(sessionStorage.getItem(draftKey(taskId, run)) ?? 'null') as Draft | null;
    return d ?? { comments: [], summary: '' };
  } catch {
    return { comments: [], summary: '' };
  }
}

export function DiffView({
  api,
  task: t,
  onTask,
}: {
  api: Api;
  task: TaskDetail;
  onTask(t: TaskRow): void;
}) {
  const [run, setRun] = useState<number | null>(null);
  const [layout, setLayout] = useState<Layout>(
    (localStorage.getItem('svc.diff.layout') as Layout) || 'side-by-side',
  );
  const [stat, setStat] = useState<DiffStat | null>(null);
  const [text, setText] = useState<string | null>(null);
  const [truncated, setTruncated] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [comments, setComments] = useState<Map<string, LineComment>>(new Map());
  const [summary, setSummary] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const holder = useRef<HTMLDivElement>(null);
  const drawn = useRef(new Map<string, HTMLElement[]>());

  // Drafts: restored per task and run, saved on every change.
  useEffect(() => {
    const d = loadDraft(t.id, run);
    setComments(new Map(d.comments.map((c) => [commentKey(c), c])));
    setSummary(d.summary);
    setEditing(null);
  }, [t.id, run]);
  useEffect(() => {
    const d: Draft = { comments: [...comments.values()], summary };
    if (d.comments.length === 0 && !summary) sessionStorage.removeItem(draftKey(t.id, run));
    else sessionStorage.setItem(draftKey(t.id, run), JSON.stringify(d));
  }, [comments, summary, t.id, run]);

  const query = run !== null ? { run } : {};
  const oneFile = stat !== null && stat.additions + stat.deletions > WHOLE_DIFF_LINES;

  useEffect(() => {
    let stopped = false;
    setError(null);
    setStat(null);
    setText(null);
    void (async () => {
      try {
        const s = await api.get<DiffStat>(`/v1/tasks/${t.id}/diff`, { ...query, stat: true });
        if (stopped) return;
        setStat(s);
        const big = s.additions + s.deletions > WHOLE_DIFF_LINES;
        const first = s.files[0]?.path ?? null;
        setSelected((cur) => (cur && s.files.some((f) => f.path === cur) ? cur : first));
        if (!big) {
          const r = await api.text(`/v1/tasks/${t.id}/diff`, query);
          if (stopped) return;
          setText(r.text);
          setTruncated(r.headers.get('x-svc-diff-truncated') === 'true');
        }
      } catch (err) {
        if (!stopped) setError(err instanceof ApiError ? diffRefusal(err) : (err as Error).message);
      }
    })();
    return () => {
      stopped = true;
    };
    // The diff is read again when the task's state or step changes: new commits may be there.
  }, [api, t.id, run, t.state, t.current_step]);

  // One file at a time for a big diff.
  useEffect(() => {
    if (!oneFile || !selected) return;
    let stopped = false;
    void api
      .text(`/v1/tasks/${t.id}/diff`, { ...query, path: selected })
      .then((r) => !stopped && setText(r.text))
      .catch((err) => !stopped && setError((err as Error).message));
    return () => {
      stopped = true;
    };
  }, [api, oneFile, selected, t.id, run]);

  const rendered = useMemo(() => {
    if (text === null) return null;
    const files = parseDiff(text);
    return {
      paths: files.map((f) => (f.isDeleted || f.newName === '/dev/null' ? f.oldName : f.newName)),
      html: diffHtml(files, {
        outputFormat: layout,
        drawFileList: false,
        matching: 'lines',
        diffStyle: 'word',
        colorScheme: ColorSchemeType.AUTO,
      }),
    };
  }, [text, layout]);

  // Draw the hunks, then mark each code row with its file, side and line so a click can comment.
  useEffect(() => {
    const el = holder.current;
    if (!el || !rendered) return;
    for (const rows of drawn.current.values()) {
      const host = rows[0]?.querySelector('.svc-comment-host');
      if (host) render(null, host);
    }
    el.innerHTML = rendered.html;
    el.querySelectorAll<HTMLElement>('.d2h-file-wrapper').forEach((w, i) => {
      const path = rendered.paths[i];
      if (path === undefined) return;
      w.dataset.path = path;
      const sides = w.querySelectorAll<HTMLElement>('.d2h-file-side-diff');
      if (sides.length === 2) {
        sides.forEach((sideEl, si) => {
          for (const row of sideEl.querySelectorAll<HTMLTableRowElement>('tbody tr')) {
            const n = row.querySelector('.d2h-code-side-linenumber')?.textContent?.trim();
            if (n && /^\d+$/.test(n)) mark(row, si === 0 ? 'old' : 'new', n);
          }
        });
      } else {
        for (const row of w.querySelectorAll<HTMLTableRowElement>('tbody tr')) {
          const n2 = row.querySelector('.line-num2')?.textContent?.trim();
          const n1 = row.querySelector('.line-num1')?.textContent?.trim();
          if (n2 && /^\d+$/.test(n2)) mark(row, 'new', n2);
          else if (n1 && /^\d+$/.test(n1)) mark(row, 'old', n1);
        }
      }
    });
    drawn.current = new Map();
  }, [rendered]);

  // Comment rows inside the diff: one per comment (and the one being written), kept in step with state.
  useEffect(() => {
    const el = holder.current;
    if (!el || !rendered) return;
    const want = new Set([...comments.keys(), ...(editing ? [editing] : [])]);
    for (const [key, rows] of drawn.current) {
      if (want.has(key)) continue;
      const host = rows[0]?.querySelector('.svc-comment-host');
      if (host) render(null, host);
      for (const r of rows) r.remove();
      drawn.current.delete(key);
    }
    for (const key of want) {
      const [side, line, ...rest] = key.split(':');
      const path = rest.join(':');
      const c = comments.get(key) ?? { path, line: Number(line), side: side as Side, body: '' };
      let rows = drawn.current.get(key);
      if (!rows) {
        const row = el.querySelector<HTMLTableRowElement>(
          `.d2h-file-wrapper[data-path="${CSS.escape(path)}"] tr[data-side="${side}"][data-line="${line}"]`,
        );
        if (!row) continue;
        rows = insertCommentRows(row);
        drawn.current.set(key, rows);
      }
      const host = rows[0]?.querySelector<HTMLElement>('.svc-comment-host');
      if (!host) continue;
      render(
        <CommentBox
          comment={c}
          editing={editing === key}
          onEdit={() => setEditing(key)}
          onSave={(body) => {
            const next = new Map(comments);
            if (body.trim() === '') next.delete(key);
            else next.set(key, { ...c, body });
            setComments(next);
            setEditing(null);
          }}
          onCancel={() => setEditing(null)}
          onRemove={() => {
            const next = new Map(comments);
            next.delete(key);
            setComments(next);
            setEditing(null);
          }}
        />,
        host,
      );
      syncHeights(rows);
    }
  }, [comments, editing, rendered]);

  const onClick = (e: MouseEvent) => {
    const cell = (e.target as HTMLElement).closest(
      'td.d2h-code-linenumber, td.d2h-code-side-linenumber',
    );
    const row = cell?.closest<HTMLTableRowElement>('tr[data-line]');
    const path = row?.closest<HTMLElement>('.d2h-file-wrapper')?.dataset.path;
    if (!row || path === undefined) return;
    setEditing(
      commentKey({ path, line: Number(row.dataset.line), side: row.dataset.side as Side }),
    );
  };

  const action = reviewAction(t.state);
  const send = async (dryRun: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const body = reviewBody(comments.values(), summary, run, dryRun);
      const r = await api.post<
        TaskRow & { review: { action: string; prompt: string }; warnings?: string[] }
      >(`/v1/tasks/${t.id}/review`, body);
      if (dryRun) setPreview(r.review.prompt);
      else {
        setSent(
          `Sent as ${r.review.action === 'follow_up' ? 'a follow-up' : 'reject and repair'}: the task is now ${r.state}.`,
        );
        setComments(new Map());
        setSummary('');
        setPreview(null);
        onTask(r);
      }
    } catch (err) {
      setError(
        err instanceof ApiError
          ? `${err.message}${err.details.field ? ` (${String(err.details.field)})` : ''}`
          : (err as Error).message,
      );
    } finally {
      setBusy(false);
    }
  };

  const runs = t.steps ?? [];
  const tree = stat ? fileTree(stat.files.map((f) => f.path)) : [];
  const byPath = new Map((stat?.files ?? []).map((f) => [f.path, f]));
  const count = [...comments.values()].length;

  return (
    <div class="review" data-testid="review">
      <div class="review-bar">
        <label>
          Changes{' '}
          <select
            data-testid="diff-run"
            value={run ?? ''}
            onChange={(e) => {
              const v = (e.currentTarget as HTMLSelectElement).value;
              setRun(v ? Number(v) : null);
            }}
          >
            <option value="">All changes on the branch</option>
            {runs.map((r) => (
              <option value={r.id} key={r.id}>
                {r.step_id === '__repair' ? 'repair' : r.step_name} · attempt {r.attempt}
              </option>
            ))}
          </select>
        </label>
        <div class="seg">
          {(['side-by-side', 'line-by-line'] as const).map((l) => (
            <button
              type="button"
              key={l}
              class={layout === l ? 'on' : ''}
              onClick={() => {
                setLayout(l);
                localStorage.setItem('svc.diff.layout', l);
              }}
            >
              {l === 'side-by-side' ? 'Side by side' : 'Unified'}
            </button>
          ))}
        </div>
        {stat && (
          <span class="diff-total">
            {stat.files.length} file{stat.files.length === 1 ? '' : 's'}{' '}
            <span class="add">+{stat.additions}</span> <span class="del">−{stat.deletions}</span>
          </span>
        )}
      </div>
      {error && (
        <p class="action-message bad" data-testid="review-error">
          {error}
        </p>
      )}
      {(truncated || stat?.truncated) && (
        <p class="notice">
          This diff is over 16 MiB and was cut; pick a file or a step run to see the rest.
        </p>
      )}
      <div class="review-body">
        <nav class="file-tree" data-testid="file-tree">
          {stat && stat.files.length === 0 && <p class="muted">No changes.</p>}
          <Tree
            nodes={tree}
            byPath={byPath}
            selected={selected}
            onPick={(p) => {
              setSelected(p);
              if (!oneFile)
                holder.current
                  ?.querySelector(`.d2h-file-wrapper[data-path="${CSS.escape(p)}"]`)
                  ?.scrollIntoView({ block: 'start' });
            }}
          />
        </nav>
        <div class="diff-col">
          {/* biome-ignore lint/a11y/noStaticElementInteractions: a click on a line number (delegated from the drawn diff) opens a comment box, which is keyboard-usable */}
          {/* biome-ignore lint/a11y/useKeyWithClickEvents: as above */}
          <div class="diff" ref={holder} onClick={onClick} data-testid="diff" />
          {text === null && !error && <p class="muted">Loading the diff…</p>}
        </div>
      </div>
      <div class="review-send" data-testid="review-send">
        <label>
          Summary <span class="muted">(general remarks, placed before the line comments)</span>
          <textarea
            rows={3}
            value={summary}
            onInput={(e) => setSummary((e.currentTarget as HTMLTextAreaElement).value)}
            name="summary"
          />
        </label>
        <div class="row">
          <span class="muted">
            {count} comment{count === 1 ? '' : 's'} · click a line number to comment
          </span>
          <span class="grow" />
          <button
            type="button"
            disabled={busy || !action || !canSend(comments.values(), summary)}
            onClick={() => void send(true)}
          >
            Preview prompt
          </button>
          <button
            type="button"
            class="primary"
            data-action="send-review"
            disabled={busy || !action || !canSend(comments.values(), summary)}
            onClick={() => void send(false)}
          >
            {action?.label ?? 'Send review'}
          </button>
        </div>
        {!action && (
          <p class="muted">
            A review goes back to the agent when the task is done, aborted or waiting at a gate.
          </p>
        )}
        {sent && (
          <p class="action-message good" data-testid="review-sent">
            {sent}
          </p>
        )}
        {preview !== null && (
          <pre class="preview" data-testid="review-preview">
            {preview}
          </pre>
        )}
      </div>
    </div>
  );
}

function diffRefusal(err: ApiError): string {
  if (err.status === 404 && err.code === 'not_found' && /endpoint/.test(err.message))
    return 'This daemon has no diff route yet (it arrives with svc’s review feature).';
  if (err.code === 'invalid_state') {
    const reason = String(err.details.reason ?? '');
    if (reason) return `No diff to show: ${err.message}`;
  }
  return err.message;
}

function mark(row: HTMLTableRowElement, side: Side, line: string): void {
  row.dataset.side = side;
  row.dataset.line = line;
  row.classList.add('svc-line');
}

/**
 * A comment row after `row`. Side by side, the other half's table gets an empty row at the same
 * place, kept as tall as the comment, so both halves stay aligned.
 */
function insertCommentRows(row: HTMLTableRowElement): HTMLElement[] {
  const cols = row.children.length;
  const make = (withHost: boolean) => {
    const tr = document.createElement('tr');
    tr.className = withHost ? 'svc-comment-row' : 'svc-comment-spacer';
    const td = document.createElement('td');
    td.colSpan = cols;
    if (withHost) {
      const host = document.createElement('div');
      host.className = 'svc-comment-host';
      td.appendChild(host);
    }
    tr.appendChild(td);
    return tr;
  };
  const own = make(true);
  row.after(own);
  const side = row.closest('.d2h-file-side-diff');
  const wrapper = row.closest('.d2h-files-diff');
  if (!side || !wrapper) return [own];
  const halves = [...wrapper.querySelectorAll('.d2h-file-side-diff')];
  const other = halves.find((h) => h !== side);
  const index = [...(row.parentElement?.children ?? [])].indexOf(row);
  const twin = other?.querySelector('tbody')?.children[index];
  if (!twin) return [own];
  const spacer = make(false);
  twin.after(spacer);
  return [own, spacer];
}

function syncHeights(rows: HTMLElement[]): void {
  const [own, spacer] = rows;
  if (!own || !spacer) return;
  requestAnimationFrame(() => {
    spacer.style.height = `${own.getBoundingClientRect().height}px`;
  });
}

function CommentBox(p: {
  comment: LineComment;
  editing: boolean;
  onEdit(): void;
  onSave(body: string): void;
  onCancel(): void;
  onRemove(): void;
}) {
  const [body, setBody] = useState(p.comment.body);
  const where = `${p.comment.side === 'old' ? 'old ' : ''}line ${p.comment.line}`;
  if (!p.editing)
    return (
      <div class="comment" data-comment={commentKey(p.comment)}>
        <div class="comment-head">
          <span class="muted">{where}</span>
          <span class="grow" />
          <button type="button" class="ghost small" onClick={p.onEdit}>
            Edit
          </button>
          <button type="button" class="ghost small" onClick={p.onRemove}>
            Remove
          </button>
        </div>
        <div class="comment-body">{p.comment.body}</div>
      </div>
    );
  return (
    <form
      class="comment editing"
      onSubmit={(e) => {
        e.preventDefault();
        p.onSave(body);
      }}
    >
      <div class="comment-head">
        <span class="muted">Comment on {where}</span>
      </div>
      <textarea
        rows={3}
        value={body}
        name="comment"
        // biome-ignore lint/a11y/noAutofocus: the box opens because the user just asked to write in it
        autoFocus
        onInput={(e) => setBody((e.currentTarget as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) p.onSave(body);
          if (e.key === 'Escape') p.onCancel();
        }}
      />
      <div class="row">
        <button type="submit" class="primary small" data-action="save-comment">
          Add comment
        </button>
        <button type="button" class="small" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Tree({
  nodes,
  byPath,
  selected,
  onPick,
}: {
  nodes: TreeNode[];
  byPath: Map<string, DiffStat['files'][number]>;
  selected: string | null;
  onPick(p: string): void;
}) {
  return (
    <ul class="tree">
      {nodes.map((n) =>
        n.children ? (
          <li key={n.path} class="dir">
            <span class="dir-name">{n.name}/</span>
            <Tree nodes={n.children} byPath={byPath} selected={selected} onPick={onPick} />
          </li>
        ) : (
          <li key={n.path}>
            <button
              type="button"
              class={`file ${selected === n.path ? 'on' : ''} ${byPath.get(n.path)?.status ?? ''}`}
              onClick={() => onPick(n.path)}
              title={n.path}
            >
              <span class="file-name">{n.name}</span>
              <span class="add">+{byPath.get(n.path)?.additions ?? 0}</span>
              <span class="del">−{byPath.get(n.path)?.deletions ?? 0}</span>
            </button>
          </li>
        ),
      )}
    </ul>
  );
}
