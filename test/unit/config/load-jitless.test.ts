// config.yaml is parsed without zod's compiled fast path (kernel/config/load.ts): a file parsed
// once at start and once per edit never pays back a parser written and compiled for each object
// of the schema. zod compiles through the global `Function` constructor, counted here.
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../kernel/config/index.js';

const original = globalThis.Function;
afterEach(() => {
  globalThis.Function = original;
});

describe('parsing config.yaml', () => {
  // Nothing else in this file parses with the schema first: a parse with the fast path would have
  // compiled its parsers already (the generated template's defaults do).
  it('compiles no code, and keeps the values it was given', () => {
    const text = [
      'listen: 127.0.0.1:0',
      'max_parallel_tasks: 5',
      'defaults:',
      '  agent_timeout: 45m',
      'environment:',
      '  unset: [AWS_SECRET_ACCESS_KEY]',
      'agents:',
      '  claude:',
      '    path: /opt/claude',
      '',
    ].join('\n');
    let compiled = 0;
    globalThis.Function = new Proxy(original, {
      construct(target, args) {
        compiled++;
        return Reflect.construct(target, args);
      },
    });
    const load = parseConfigText(text);
    globalThis.Function = original;
    expect(compiled).toBe(0);
    expect(load.ok).toBe(true);
    if (!load.ok) return;
    expect(load.config.max_parallel_tasks).toBe(5);
    expect(load.config.defaults.agent_timeout).toBe('45m');
    expect(load.config.environment.unset).toEqual(['AWS_SECRET_ACCESS_KEY']);
    expect(load.config.agents.claude.path).toBe('/opt/claude');
  });
});
