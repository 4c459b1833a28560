// SPEC §2.7 built-ins: adhoc (one agent step), create-workflow (one agent step that writes a
// workflow file), update-workflows (rewrites and validates each file); and the starter template.
import { describe, expect, it } from 'vitest';
import { BUILTIN_WORKFLOWS, starterWorkflow } from '../../../kernel/workflows/index.js';
import { check } from './support.js';

describe('built-in workflows', () => {
  it('are adhoc, create-workflow and update-workflows, each valid with no warning', async () => {
    expect(BUILTIN_WORKFLOWS.map((b) => b.name)).toEqual([
      'adhoc',
      'create-workflow',
      'update-workflows',
    ]);
    for (const b of BUILTIN_WORKFLOWS) {
      const r = await check(b.text);
      expect(r.errors, b.name).toEqual([]);
      expect(r.warnings, b.name).toEqual([]);
      expect(r.declaredName).toBe(b.name);
      expect(r.definition?.steps.map((s) => s.type)).toEqual(['agent']);
    }
  });

  it('describe the job in their prompts', async () => {
    const [adhoc, create, update] = await Promise.all(BUILTIN_WORKFLOWS.map((b) => check(b.text)));
    expect(adhoc?.definition?.steps[0]).toMatchObject({ id: 'run', max_retries: 0 });
    expect(String(create?.definition?.steps[0]?.prompt)).toContain('.svc/workflows/');
    expect(String(create?.definition?.steps[0]?.prompt)).toContain('svc workflow validate');
    expect(update?.definition?.steps[0]).toMatchObject({
      check: 'svc workflow validate .svc/workflows',
    });
    expect(create?.fields.map((f) => f.name)).toEqual(['workflow_name']);
  });

  it('the starter a create writes validates, whatever the name', async () => {
    for (const name of ['nightly', '1.0', 'true', 'a_b-c.d']) {
      const r = await check(starterWorkflow(name));
      expect(r.errors, name).toEqual([]);
      expect(r.declaredName).toBe(name);
    }
  });
});
