// Issue 20 point 3: `svc mcp stdio` is an MCP server on stdin/stdout that finds the running daemon
// through daemon.json and the token file and relays to /mcp. One client session survives a daemon
// restart on another port (the relay finds the daemon again and replays the session's
// initialize); with no daemon a call is a JSON-RPC error saying so. Built daemon, built CLI, the
// SDK's own stdio client.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { dirsIn, HAVE_BUILD, SVC_BIN, startDaemon } from '../support/daemon-proc.js';
import { gitRepo } from '../support/git.js';
import { tempDir } from '../support/tmp.js';

function relay(dirs: { dataDir: string; configDir: string }) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SVC_BIN, 'mcp', 'stdio'],
    env: {
      ...(process.env as Record<string, string>),
      SVC_DATA_DIR: dirs.dataDir,
      SVC_CONFIG_DIR: dirs.configDir,
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (b: Buffer) => {
    stderr += b.toString('utf8');
  });
  const client = new Client({ name: 'svc-e2e', version: '1.0.0' });
  return { client, transport, stderr: () => stderr };
}

const text = (r: unknown) =>
  JSON.parse(((r as { content: Array<{ text: string }> }).content[0] as { text: string }).text);

describe.skipIf(!HAVE_BUILD)('svc mcp stdio', () => {
  it('relays the tools, survives a daemon restart on another port, and says when no daemon runs', async () => {
    const dirs = dirsIn(tempDir('svc-e2e-stdio-'));
    let daemon = await startDaemon(dirs);
    onTestFinished(() => daemon.stop());
    const port = () =>
      (JSON.parse(readFileSync(join(dirs.dataDir, 'daemon.json'), 'utf8')) as { port: number })
        .port;
    const first = port();

    const { client, transport, stderr } = relay(dirs);
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['tasks_create', 'projects_create', 'tasks_list']),
    );
    const create = tools.find((t) => t.name === 'tasks_create');
    const fields = (create?.inputSchema.properties ?? {}) as Record<
      string,
      { description?: string }
    >;
    expect(fields.title?.description).toBeTruthy();
    const project = text(
      await client.callTool({ name: 'projects_create', arguments: { path: gitRepo().path } }),
    ) as { id: number };
    const task = text(
      await client.callTool({
        name: 'tasks_create',
        arguments: { project_id: project.id, title: 'over stdio', paused: true },
      }),
    );
    expect(task).toMatchObject({ state: 'paused', created_via: 'mcp' });

    // A restart: another port (listen is 127.0.0.1:0), every MCP session of the old daemon gone.
    await daemon.stop();
    daemon = await startDaemon(dirs);
    expect(port()).not.toBe(first);
    const listed = text(await client.callTool({ name: 'tasks_list', arguments: {} })) as {
      tasks: Array<{ title: string }>;
    };
    expect(listed.tasks.map((t) => t.title)).toEqual(['over stdio']);
    expect(stderr()).toContain(`connected to http://127.0.0.1:${port()}/mcp`);

    // No daemon: the call is answered, with why, instead of hanging.
    await daemon.stop();
    await expect(client.callTool({ name: 'tasks_list', arguments: {} })).rejects.toThrow(
      /svc daemon is not running/,
    );
    await client.close();
  }, 120_000);

  it('a client that leaves ends the session quietly: no error in its server log', async () => {
    const dirs = dirsIn(tempDir('svc-e2e-stdio-'));
    const daemon = await startDaemon(dirs);
    onTestFinished(() => daemon.stop());
    const { client, transport, stderr } = relay(dirs);
    await client.connect(transport);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    // close() ends the relay's stdin and waits for the process to exit, its stderr read to the end.
    await client.close();
    // Closing the session closes its event stream; the SDK calls that an error, the relay not.
    expect(stderr().trim().split('\n')).toEqual([expect.stringMatching(/^svc mcp: connected to /)]);
  }, 60_000);
});
