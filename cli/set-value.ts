/**
 * The value of `--set path=value` (`svc trigger edit`) and `svc config set <key> <value>`, read
 * the way a person means it (issue 19 point 14). Numbers, booleans, durations and `[a, b]` lists
 * are YAML; but a template (`{{.Item.title}}`, `Fix: {{.Item.title}}`) is YAML for a flow mapping,
 * so it came back as an object, or as a parse error, while the yaml library printed a warning to
 * the terminal. A value holding `{{` is therefore text as typed, and so is one that does not
 * parse as YAML at all; YAML quotes (`'"yes"'`) still force text. Nothing is ever logged.
 */
import { parse } from 'yaml';

export function setValue(text: string): unknown {
  if (text.includes('{{')) return text;
  try {
    return parse(text, { logLevel: 'silent' }) ?? null;
  } catch {
    return text;
  }
}
