/** Reading and validating config.yaml. Pure apart from the file read; no side effects on failure. */
import { existsSync, readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { type Finding, findingsFromZod } from '../validation.js';
import { type Config, ConfigSchema } from './schema.js';

export type ConfigLoad =
  | { ok: true; config: Config; raw: Record<string, unknown>; text: string }
  | { ok: false; findings: Finding[]; text: string };

/** Parses and validates config text; an empty document means "all defaults". */
export function parseConfigText(text: string): ConfigLoad {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      text,
      findings: doc.errors.map((e) => ({
        path: '',
        message: `config.yaml does not parse: ${e.message.split('\n')[0]}`,
        line: e.linePos?.[0]?.line,
      })),
    };
  }
  const raw: unknown = doc.toJS() ?? {};
  if (typeof raw !== 'object' || Array.isArray(raw) || raw === null) {
    return {
      ok: false,
      text,
      findings: [{ path: '', message: 'config.yaml must be a mapping of keys' }],
    };
  }
  return validateRawConfig(raw as Record<string, unknown>, text);
}

export function validateRawConfig(raw: Record<string, unknown>, text = ''): ConfigLoad {
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, text, findings: findingsFromZod(parsed.error) };
  return { ok: true, config: parsed.data, raw, text };
}

export function readConfigFile(path: string): ConfigLoad {
  if (!existsSync(path)) return validateRawConfig({}, '');
  return parseConfigText(readFileSync(path, 'utf8'));
}
