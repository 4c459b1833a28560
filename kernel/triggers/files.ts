/**
 * The trigger directory `{config_dir}/triggers` (SPEC §2.6): one file `{id}.yaml` per trigger.
 * Every write goes through a temporary sibling and a rename with mode 0600, because a trigger
 * file may hold a signing secret; the directory is kept 0700. Reading never hides a file: one
 * that cannot be read, parsed or validated is listed with its findings.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from '../daemon/paths.js';
import { writeFileAtomic } from '../fsutil.js';
import { triggerIdProblem } from './definition.js';
import {
  type TriggerFinding,
  type TriggerValidation,
  type TriggerValidationContext,
  validateTriggerText,
} from './validate.js';

export interface TriggerFile {
  /** The file name without `.yaml`. */
  id: string;
  file: string;
  /** The bytes as text; null when the file could not be read. */
  text: string | null;
  version: string;
  validation: TriggerValidation;
}

/** An opaque token for a file's contents: changes whenever a byte changes. */
export function versionOf(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
}

export class TriggerFiles {
  constructor(
    readonly dir: string,
    private readonly ctx: TriggerValidationContext,
  ) {}

  pathOf(id: string): string {
    return join(this.dir, `${id}.yaml`);
  }

  /** Ids of every `*.yaml` file, sorted; names that are not valid ids are still listed. */
  ids(): string[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((n) => n.endsWith('.yaml') && !n.startsWith('.'))
      .map((n) => n.slice(0, -'.yaml'.length))
      .filter((id) => {
        try {
          return statSync(this.pathOf(id)).isFile();
        } catch {
          return false;
        }
      })
      .sort();
  }

  list(): TriggerFile[] {
    return this.ids().map((id) => this.load(id));
  }

  /** The file of a valid id, or null when there is none (or the id could not name a file). */
  read(id: string): TriggerFile | null {
    if (triggerIdProblem(id) !== null) return null;
    if (!existsSync(this.pathOf(id))) return null;
    return this.load(id);
  }

  validate(text: string, expectId?: string): TriggerValidation {
    return validateTriggerText(text, this.ctx, expectId);
  }

  private load(id: string): TriggerFile {
    const file = this.pathOf(id);
    let text: string | null = null;
    let unreadable: TriggerFinding | null = null;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      unreadable = {
        path: '',
        code: 'unreadable',
        message: `cannot read ${file}: ${(err as Error).message}`,
      };
    }
    const idProblem = triggerIdProblem(id);
    let validation: TriggerValidation;
    if (text === null) {
      validation = {
        definition: null,
        findings: [unreadable as TriggerFinding],
        enabled: false,
        declaredId: null,
      };
    } else {
      validation = this.validate(text, idProblem ? undefined : id);
      if (idProblem) {
        validation = {
          ...validation,
          definition: null,
          findings: [
            {
              path: '',
              code: 'invalid_file_name',
              message: `the file name ${id}.yaml is not a valid trigger id: it ${idProblem}`,
            },
            ...validation.findings,
          ],
        };
      }
    }
    return { id, file, text, version: text === null ? '' : versionOf(text), validation };
  }

  write(id: string, text: string): void {
    ensurePrivateDir(this.dir);
    writeFileAtomic(this.pathOf(id), text, 0o600);
  }

  remove(id: string): void {
    unlinkSync(this.pathOf(id));
  }

  /** Re-tightens the directory and every file (a user's editor or `cp` can loosen them). */
  tighten(): void {
    if (!existsSync(this.dir) || process.platform === 'win32') return;
    chmodSync(this.dir, 0o700);
    for (const id of this.ids()) {
      try {
        chmodSync(this.pathOf(id), 0o600);
      } catch {}
    }
  }
}
