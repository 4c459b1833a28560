// Parity: the error table, SPEC §7 and docs/errors.md agree both ways (STYLE "Errors live in one table").
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCodes, isSvcError, SvcError } from '../../../kernel/errors.js';

// The codes SPEC §7 names, with their statuses (copied here: the project never reads ../shared).
const SPEC_CODES: Record<string, number> = {
  validation_failed: 400,
  invalid_json: 400,
  agent_cannot_resume: 400,
  invalid_state: 409,
  chat_cap_reached: 409,
  repo_operation_in_progress: 409,
  task_locked_by_chat: 409,
  task_has_no_worktree: 409,
  chat_linked_to_task: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
};

function documented(): Record<string, number> {
  const text = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
  const rows: Record<string, number> = {};
  for (const m of text.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm))
    rows[m[1] as string] = Number(m[2]);
  return rows;
}

describe('error table', () => {
  it('holds every SPEC §7 code with its status', () => {
    for (const [code, status] of Object.entries(SPEC_CODES)) {
      expect(errorCodes[code as keyof typeof errorCodes]?.status, code).toBe(status);
    }
  });

  it('matches docs/errors.md both ways', () => {
    const docs = documented();
    const table = Object.fromEntries(Object.entries(errorCodes).map(([k, v]) => [k, v.status]));
    expect(docs).toEqual(table);
  });

  it('recognizes errors by brand, not by class identity', () => {
    expect(isSvcError(new SvcError('not_found', 'x'))).toBe(true);
    // A copy of the class from another bundle still matches.
    expect(isSvcError({ svcError: true, code: 'invalid_state', message: 'x' })).toBe(true);
    expect(isSvcError({ svcError: true, code: 'no_such_code' })).toBe(false);
    expect(isSvcError(new Error('x'))).toBe(false);
  });
});
