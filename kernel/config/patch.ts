/**
 * Writes a partial config body into config.yaml's own text, touching only the keys it names, so
 * the user's comments, key order and blank lines survive byte for byte (the shared YAML editor).
 * `null` removes a key (it falls back to its default, decision 007).
 */

import type { JsonObject } from '../../lib/yaml-edit/index.js';
import { setLeaves } from '../../lib/yaml-edit/index.js';

export type PatchResult = { ok: true; text: string } | { ok: false; message: string; key: string };

export function applyConfigPatch(text: string, body: Record<string, unknown>): PatchResult {
  const r = setLeaves(text === '' ? '{}\n' : text, body as JsonObject, { nullRemoves: true });
  if (r.ok) return { ok: true, text: r.text };
  const f = r.findings[0];
  return {
    ok: false,
    message: f ? `cannot write ${f.path || 'the file'}: ${f.message}` : 'cannot write the patch',
    key: f?.path ?? '',
  };
}
