/**
 * The built CLI in remote mode: one `guru-mcp serve` owns the data, and an MCP
 * server over stdio reaches it through the REST API with a guru's key. Its
 * tools answer exactly as a local MCP server on the same data does.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatedGuru } from '../../src/core/schemas.js';
import { cleanEnv, runCli } from '../cli/run-cli.js';
import { CONFIG_GUIDE, INSTALL_GUIDE } from '../contract/fixtures.js';
import { BIN } from '../global-setup.js';
import { newClient } from '../mcp/support.js';
import { answerOf } from '../support/mcp-answer.js';

/** Starts `serve` on a free loopback port; resolves with its base URL once it says where it listens. */
function serve(dir: string): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dir], {
    env: cleanEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolveStart, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) resolveStart({ child, base: match[1]! });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${stderr}`)));
  });
}

async function stdioClient(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'stdio', ...args],
    env: cleanEnv(env) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = newClient('2026-07-28');
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
  expect(result.isError, text).toBeFalsy();
  return result;
}

describe('guru-mcp in remote mode (built CLI)', () => {
  let dataDir: string;
  let remoteDir: string;
  let server: ChildProcess | undefined;
  let apiUrl: string;
  let apiKey: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-mcp-e2e-remote-data-'));
    remoteDir = mkdtempSync(join(tmpdir(), 'guru-mcp-e2e-remote-client-'));
    const created = await runCli(['guru', 'create', 'frob', '--name', 'Frobnicator', '--json', '--data-dir', dataDir]);
    expect(created.code, created.stderr).toBe(0);
    apiKey = CreatedGuru.parse(JSON.parse(created.stdout)).api_key;
    const started = await serve(dataDir);
    server = started.child;
    apiUrl = `${started.base}/api/v1`;
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    if (server && server.exitCode === null) {
      const exited = new Promise((done) => server!.once('exit', done));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(remoteDir, { recursive: true, force: true });
  });

  const remoteEnv = () => ({ GURU_BACKEND: 'remote', GURU_API_URL: apiUrl, GURU_API_KEY: apiKey, GURU_DEFAULT_GURU: 'frob' });

  it('serves the same tool results over the REST API as on the data itself', async () => {
    const remote = await stdioClient(['--data-dir', remoteDir], remoteEnv());
    clients.push(remote);

    const { tools } = await remote.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['ask', 'semantic_search', 'add_sources', 'list_sources', 'list_sessions']));
    expect(names).not.toContain('list_gurus');
    expect(names).not.toContain('create_guru');

    const added = await call(remote, 'add_sources', {
      text_sources: [
        { name: 'Install guide', content: INSTALL_GUIDE },
        { name: 'Configuration', content: CONFIG_GUIDE },
      ],
      labels: ['docs'],
      wait: true,
    });
    expect(added.structuredContent).toMatchObject({ processing: { pending: [] } });

    const asked = await call(remote, 'ask', { question: 'How do I install Frobnicator?' });
    const answer = answerOf(asked);
    expect(answer.references.map((reference) => reference.title)).toContain('Install guide');
    expect(answer.content).toContain('npm install -g frobnicator');

    const local = await stdioClient(['--data-dir', dataDir]);
    clients.push(local);
    for (const [tool, args] of [
      // Without excerpts (evidence_tokens 0): the hosted API has none to give.
      ['semantic_search', { question: 'where are the settings of frobnicator', labels: ['docs'], evidence_tokens: 0 }],
      ['list_sources', { page: 1, page_size: 1 }],
      ['get_session', { session_id: answer.session_id }],
    ] as const) {
      const overRest = await call(remote, tool, args);
      const direct = await call(local, tool, args);
      expect(overRest.structuredContent, tool).toEqual(direct.structuredContent);
    }
    const search = await call(remote, 'semantic_search', { question: 'where are the settings of frobnicator' });
    expect((search.structuredContent as { sources: { title: string }[] }).sources[0]?.title).toBe('Configuration');
  });

  it('shows the service\'s own error for a wrong key', async () => {
    const remote = await stdioClient(['--data-dir', remoteDir], { ...remoteEnv(), GURU_API_KEY: 'guru_wrong' });
    clients.push(remote);
    const result = (await remote.callTool({ name: 'list_sources', arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/^Invalid API key\n.*GURU_API_KEY/);
  });

  it('runs the CLI against the REST API, refusing guru administration', async () => {
    const local = await runCli(['search', 'frob', 'install', '--json', '--data-dir', dataDir]);
    const remote = await runCli(['search', 'frob', 'install', '--json', '--backend', 'remote', '--api-url', apiUrl, '--data-dir', remoteDir], {
      env: { GURU_API_KEY: apiKey },
    });
    expect(remote.code, remote.stderr).toBe(0);
    expect(JSON.parse(remote.stdout)).toEqual(JSON.parse(local.stdout));

    const list = await runCli(['guru', 'list', '--data-dir', remoteDir], { env: remoteEnv() });
    expect(list.code).toBe(1);
    expect(list.stderr).toContain('This backend cannot administer gurus.');

    const keyless = await runCli(['search', 'frob', 'install', '--backend', 'remote', '--data-dir', remoteDir]);
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toContain('apiKey (GURU_API_KEY): required when the backend is remote');
    expect(`${remote.stderr}${list.stderr}`).not.toContain(apiKey);
  });
});
