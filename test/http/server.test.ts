import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openBackend, openRateLimiter, type OpenedBackend, type OpenedRateLimiter } from '../../src/compose.js';
import { Config } from '../../src/config.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { silentLogger } from '../../src/log.js';
import { createMcpHttpHandler } from '../../src/mcp/http.js';

describe('startHttpServer', () => {
  let dataDir: string;
  let backend: OpenedBackend;
  let limiter: OpenedRateLimiter;
  const servers: RunningHttpServer[] = [];

  const start = async (overrides: Partial<Parameters<typeof startHttpServer>[0]> = {}) => {
    const server = await startHttpServer({
      backend,
      logger: silentLogger,
      host: '127.0.0.1',
      port: 0,
      limiter,
      ...overrides,
    });
    servers.push(server);
    return server;
  };

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-http-'));
    const config = Config.parse({ dataDir, rateLimitPerMinute: 60 });
    backend = await openBackend(config, silentLogger);
    limiter = await openRateLimiter(config, silentLogger);
  });

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    await limiter.close();
    await backend.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports its URL with the port it got and stops listening on close, once', async () => {
    const server = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await request(`${server.url}/healthz`)).statusCode).toBe(200);

    await Promise.all([server.close(), server.close()]);
    await expect(request(`${server.url}/healthz`)).rejects.toThrow();
  });

  it('rejects when the port is taken', async () => {
    const first = await start();
    const port = Number(new URL(first.url).port);
    await expect(start({ port })).rejects.toThrow(/EADDRINUSE/);
  });

  it('does not check the Host header when bound to a non-loopback address', async () => {
    const server = await start({ host: '0.0.0.0' });
    const port = new URL(server.url).port;
    const reply = await request(`http://127.0.0.1:${port}/healthz`, { headers: { host: 'guru.example.com' } });
    expect(reply.statusCode).toBe(200);
    expect(await reply.body.json()).toEqual({ status: 'ok' });
  });

  describe('paging links off loopback', () => {
    /** The data-source listing's first page of one, from a server bound to every address, asked with a forged Host. */
    async function firstPage(overrides: Partial<Parameters<typeof startHttpServer>[0]>) {
      const { api_key: key } = await backend.admin!.createGuru({ slug: 'paged' });
      await backend.assistant.createDataSources('paged', { text_sources: [{ name: 'one', content: 'One.' }, { name: 'two', content: 'Two.' }] });
      const server = await start({ host: '0.0.0.0', ...overrides });
      const port = new URL(server.url).port;
      const reply = await request(`http://127.0.0.1:${port}/api/v1/paged/data-sources/?page_size=1&page=2`, {
        headers: { host: 'evil.com:666', 'x-api-key': key },
      });
      expect(reply.statusCode).toBe(200);
      return (await reply.body.json()) as { next: string | null; previous: string | null };
    }

    it('never copy the Host header: they are relative without a public URL', async () => {
      const page = await firstPage({});
      expect(page).toMatchObject({ next: null, previous: '/api/v1/paged/data-sources/?page_size=1&page=1' });
      expect(JSON.stringify(page)).not.toContain('evil.com');
    });

    it('use the configured public URL, with its path prefix', async () => {
      const { publicUrl } = Config.parse({ dataDir, publicUrl: 'https://guru.example.com/base/' });
      const page = await firstPage({ ...(publicUrl === undefined ? {} : { publicUrl }) });
      expect(page.previous).toBe('https://guru.example.com/base/api/v1/paged/data-sources/?page_size=1&page=1');
      expect(JSON.stringify(page)).not.toContain('evil.com');
    });
  });

  it('serves MCP at /mcp, refuses foreign Host headers there, and closes the handler with the server', async () => {
    await backend.admin!.createGuru({ slug: 'docs' });
    const mcp = createMcpHttpHandler({ backend, logger: silentLogger, requireBearer: false });
    const server = await start({ mcp });

    const client = new Client({ name: 'http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('ask');
    } finally {
      await client.close();
    }

    const rebound = await request(`${server.url}/mcp`, {
      method: 'POST',
      headers: { host: 'evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(rebound.statusCode).toBe(403);
    expect(await rebound.body.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });

    // A second client keeps a session open; closing the server ends it.
    const open = new Client({ name: 'http-test-2', version: '1.0.0' });
    await open.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    await server.close();
    await expect(open.listTools()).rejects.toThrow();
    await open.close();
  });
});
