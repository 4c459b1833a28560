/**
 * How the command line says an API error to a person (issue 19 point 6, decision 203): one
 * sentence from the envelope's message and `details` — the field and how to give it with this
 * command's options, the state found, the files in the way — never the envelope as raw JSON.
 * `--json` prints the envelope itself, for scripts. Every command goes through here (cli/index.ts);
 * a command that renders an error itself calls `renderApiError`.
 */
import type { ApiError } from './client.js';

/**
 * How a command takes each request field (`base_branch` → `--base <branch>`). `fields.*` stands for
 * every workflow field, with `{name}` replaced: `--field {name}=<value>`.
 */
export type FieldFlags = Readonly<Record<string, string>>;

type Details = Record<string, unknown>;

/** `--field issue=<value>` for `fields.issue`; the flag for a plain field; null when none fits. */
export function flagFor(field: string, flags: FieldFlags | undefined): string | null {
  if (!flags) return null;
  const direct = flags[field];
  if (direct) return direct;
  const m = /^fields\.(.+)$/.exec(field);
  const each = flags['fields.*'];
  return m?.[1] && each ? each.replaceAll('{name}', m[1]) : null;
}

function fieldHint(message: string, field: string, flags: FieldFlags | undefined): string {
  const flag = flagFor(field, flags);
  if (!flag) return message.includes(field) ? '' : ` (field ${field})`;
  return /\b(is required|missing)\b/.test(message)
    ? `: give it with ${flag}`
    : `: give another with ${flag}`;
}

/** Findings of a workflow or trigger write (`details.errors`), one per line. */
function findingLines(errors: unknown): string[] {
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((f) => {
    if (!f || typeof f !== 'object') return [];
    const { path, message, line } = f as { path?: unknown; message?: unknown; line?: unknown };
    const where = [path, typeof line === 'number' ? `line ${line}` : ''].filter(Boolean).join(' ');
    return [`  ${where ? `${String(where)}: ` : ''}${String(message ?? '')}`];
  });
}

/** Details the sentence has not said yet, as words (`state running, chat_id 4`). */
function leftover(message: string, details: Details, said: ReadonlySet<string>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(details)) {
    if (said.has(k) || v === null || v === undefined) continue;
    if (typeof v === 'object' && !Array.isArray(v)) continue;
    const text = Array.isArray(v) ? v.map(String).join(', ') : String(v);
    if (text === '' || message.includes(text)) continue;
    parts.push(`${k.replaceAll('_', ' ')} ${text}`);
  }
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** The person's version of an API error: a sentence, then any lines that list what is in the way. */
export function renderApiError(err: ApiError, flags?: FieldFlags): string {
  const details: Details = err.details ?? {};
  const said = new Set<string>(['errors']);
  let text = err.message;
  const lines: string[] = [];
  if (typeof details.field === 'string') {
    text += fieldHint(err.message, details.field, flags);
    said.add('field');
  }
  if (details.reason === 'worktree_dirty') {
    said.add('reason').add('state').add('files').add('path').add('more_files');
    const files = Array.isArray(details.files) ? details.files.map(String) : [];
    if (typeof details.path === 'string' && !text.includes(details.path))
      lines.push(`  worktree ${details.path}`);
    for (const f of files) lines.push(`    ${f}`);
    if (typeof details.more_files === 'number' && details.more_files > 0)
      lines.push(`    … and ${details.more_files} more`);
  }
  if (err.code === 'task_locked_by_chat' && typeof details.chat_id === 'number') {
    said.add('chat_id');
    text += `; close it with: svc chat close ${details.chat_id}`;
  }
  text += leftover(text, details, said);
  return [text, ...findingLines(details.errors), ...lines].join('\n');
}

/** The error envelope as the API sent it (SPEC §7), for `--json`. */
export function envelopeJson(err: ApiError): string {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details) error.details = err.details;
  return JSON.stringify({ error }, null, 2);
}
