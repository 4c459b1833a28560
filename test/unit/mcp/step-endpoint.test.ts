// Per-step endpoints as pure functions (decision 122): the token, the path, the URL in and out of
// a container.
import { describe, expect, it } from 'vitest';
import { exclusionOf, HOST_ALIASES, runIdOf, stepToken } from '../../../kernel/mcp/index.js';
import { endpointFor } from '../../../kernel/mcp/step-endpoint.js';

describe('step tokens', () => {
  it('derive from the daemon token and the run: stable, distinct per run and per daemon', () => {
    expect(stepToken('daemon-a', 7)).toBe(stepToken('daemon-a', 7));
    expect(stepToken('daemon-a', 7)).not.toBe(stepToken('daemon-a', 8));
    expect(stepToken('daemon-a', 7)).not.toBe(stepToken('daemon-b', 7));
    expect(stepToken('daemon-a', 7)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('runIdOf', () => {
  it.each([
    ['/mcp/steps/12', 12],
    ['/mcp/steps/12/', 12],
    ['/mcp/steps/0', null],
    ['/mcp/steps/abc', null],
    ['/mcp/steps/12/x', null],
    ['/mcp', null],
  ])('%s → %s', (path, id) => {
    expect(runIdOf(path)).toBe(id);
  });
});

describe('endpointFor', () => {
  it('names the listener on the host, the runtime alias in a container', () => {
    const base = { daemonToken: 't', runId: 5 };
    expect(endpointFor({ ...base, baseUrl: 'http://127.0.0.1:4100', hostAlias: null })).toEqual({
      url: 'http://127.0.0.1:4100/mcp/steps/5',
      bearer_token: stepToken('t', 5),
    });
    expect(endpointFor({ ...base, baseUrl: 'http://[::1]:4100', hostAlias: null })?.url).toBe(
      'http://[::1]:4100/mcp/steps/5',
    );
    expect(
      endpointFor({
        ...base,
        baseUrl: 'http://127.0.0.1:4100',
        hostAlias: 'host.containers.internal',
      })?.url,
    ).toBe('http://host.containers.internal:4100/mcp/steps/5');
    expect(endpointFor({ ...base, baseUrl: null, hostAlias: null })).toBeNull();
  });

  it('accepts exactly the two runtime aliases as extra Host names', () => {
    expect([...HOST_ALIASES].sort()).toEqual(['host.containers.internal', 'host.docker.internal']);
  });
});

describe('exclusionOf', () => {
  it('matches exact routes and prefixes, and nothing else', () => {
    expect(exclusionOf('PATCH', '/v1/config')).toMatch(/by design/);
    expect(exclusionOf('GET', '/v1/chats/:id/skills')).toMatch(/chat family/);
    expect(exclusionOf('GET', '/v1/config')).toBeUndefined();
    expect(exclusionOf('POST', '/v1/tasks')).toBeUndefined();
  });
});
