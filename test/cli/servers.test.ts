/** `guru-mcp serve` and `guru-mcp` (stdio) as IDE clients and deployments start them. */
import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, cleanEnv, runCli } from './run-cli.js';

let dataDir: string;
let apiKey: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'guru-cli-servers-'));
  const created = await runCli(['guru', 'create', 'docs', '--json', '--data-dir', dataDir]);
  expect(created.code).toBe(0);
  apiKey = (JSON.parse(created.stdout) as { api_key: string }).api_key;
});

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('guru-mcp serve', () => {
  type Server = ChildProcessByStdio<null, Readable, Readable>;
  let server: Server | undefined;

  afterEach(async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      server.kill('SIGKILL');
      await once(server, 'exit');
    }
    server = undefined;
  });

  /** Starts the server and resolves with the URL of its "listening on" line. */
  function start(args: string[], env: Record<string, string> = {}): Promise<{ url: string; stderr: () => string }> {
    const child = spawn(process.execPath, [MAIN, 'serve', ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    server = child;
    let stderr = '';
    return new Promise((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        const url = /^listening on (http:\/\/\S+)$/m.exec(stderr)?.[1];
        if (url) resolve({ url, stderr: () => stderr });
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code} before listening:\n${stderr}`)));
    });
  }

  it('prints the real port with --port 0, answers /healthz and the REST API, and exits 0 on SIGTERM', async () => {
    const { url } = await start(['--port', '0', '--data-dir', dataDir]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:0$/);

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const sources = await fetch(`${url}/api/v1/docs/data-sources/`, { headers: { 'x-api-key': apiKey } });
    expect(sources.status).toBe(200);
    expect(await sources.json()).toMatchObject({ count: 0, results: [] });

    const exited = once(server!, 'exit');
    server!.kill('SIGTERM');
    const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    expect({ code, signal }).toEqual({ code: 0, signal: null });
  });

  it('builds paging links under --public-url, whatever the Host header says', async () => {
    const { url } = await start(['--port', '0', '--data-dir', dataDir, '--public-url', 'https://guru.example.com/base/']);
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const texts = [1, 2].map((n) => ({ name: `paging-${n}.md`, content: `Paging note ${n}.` }));
    expect((await fetch(`${url}/api/v1/docs/data-sources/`, { method: 'POST', headers, body: JSON.stringify({ text_sources: texts }) })).status).toBe(200);
    const listed = await fetch(`${url}/api/v1/docs/data-sources/?page=1&page_size=1`, { headers: { 'x-api-key': apiKey } });
    const { next } = (await listed.json()) as { next: string | null };
    expect(next).toMatch(/^https:\/\/guru\.example\.com\/base\/api\/v1\/docs\/data-sources\/\?/);
  });

  it('limits REST requests as GURU_RATE_LIMIT_PER_MINUTE says', async () => {
    // A key of its own: the windows of the other tests' requests live on in the data directory.
    const created = await runCli(['key', 'create', 'docs', '--json', '--data-dir', dataDir]);
    const { api_key: key } = JSON.parse(created.stdout) as { api_key: string };
    const { url } = await start(['--port', '0', '--data-dir', dataDir], { GURU_RATE_LIMIT_PER_MINUTE: '1' });
    const list = () => fetch(`${url}/api/v1/docs/data-sources/`, { headers: { 'x-api-key': key } });
    expect((await list()).status).toBe(200);
    const throttled = await list();
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('requires the bearer key on /mcp of loopback with GURU_MCP_REQUIRE_KEY=1', async () => {
    const initialize = (headers: Record<string, string>) =>
      fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }),
      });
    const { url } = await start(['--port', '0', '--data-dir', dataDir], { GURU_MCP_REQUIRE_KEY: '1' });
    const without = await initialize({});
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toBe('Bearer realm="guru-mcp"');
    const wrong = await initialize({ authorization: 'Bearer not-a-key' });
    expect(wrong.status).toBe(401);
    const keyed = await initialize({ authorization: `Bearer ${apiKey}` });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
    await keyed.body?.cancel();
  });

  it('exits 0 on SIGINT too', async () => {
    await start(['--port', '0', '--data-dir', dataDir]);
    const exited = once(server!, 'exit');
    server!.kill('SIGINT');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  });

  it('a port in use is a clear error with exit code 1', async () => {
    const { url } = await start(['--port', '0', '--data-dir', dataDir]);
    const port = new URL(url).port;
    const second = await runCli(['serve', '--port', port, '--data-dir', dataDir]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`guru-mcp: 127.0.0.1:${port} is already in use`);
    expect(second.stderr).toContain('hint: Pick another port with --port');
    expect(second.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('guru-mcp over stdio', () => {
  for (const args of [[], ['stdio']]) {
    it(`guru-mcp ${args.join(' ') || '(no command)'} speaks MCP and only MCP on stdout`, async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [MAIN, ...args, '--data-dir', dataDir],
        env: cleanEnv() as Record<string, string>,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'cli-test', version: '1.0.0' });
      const problems: Error[] = [];
      client.onerror = (error) => problems.push(error);
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['ask', 'semantic_search', 'list_gurus', 'create_guru']));
        const result = await client.callTool({ name: 'list_gurus', arguments: {} });
        expect(result.isError).toBeFalsy();
        expect(JSON.stringify(result.structuredContent)).toContain('"docs"');
      } finally {
        await client.close();
      }
      // A line on stdout that is not JSON-RPC would have reached the client as an error.
      expect(problems).toEqual([]);
    });
  }
});
