import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
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
import { INITIALIZE, JSON_AND_SSE } from '../support/mcp-requests.js';

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

  it('links sessions to localhost, not the wildcard address it listens on, until a public URL is set', async () => {
    const { api_key: key } = await backend.admin!.createGuru({ slug: 'linked' });
    await backend.assistant.createDataSources('linked', { text_sources: [{ name: 'dial', content: 'The wibble dial is turned clockwise to calibrate it.' }] });
    const web = { handle: async () => {}, sessionPath: (id: string) => `/sessions/${id}` };
    const ask = async (server: RunningHttpServer) => {
      const reply = await request(`http://127.0.0.1:${new URL(server.url).port}/api/v1/linked/answer/`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'How is the wibble dial calibrated?' }),
      });
      return ((await reply.body.json()) as { question_url: string; session_id: string });
    };
    const wildcard = await start({ host: '0.0.0.0', web });
    const answer = await ask(wildcard);
    expect(answer.question_url).toBe(`http://localhost:${new URL(wildcard.url).port}/sessions/${answer.session_id}`);

    const published = await start({ host: '0.0.0.0', web, publicUrl: 'https://guru.example.com' });
    expect((await ask(published)).question_url).toMatch(/^https:\/\/guru\.example\.com\/sessions\//);
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

  describe('malformed Host headers', () => {
    /** Sends one request with the Host line as given (raw bytes, which no HTTP client would send) and reads its status. */
    const rawRequest = (port: string, method: string, path: string, hostLine: string | undefined, body = ''): Promise<{ status: number; text: string }> =>
      new Promise((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', reject);
        socket.on('close', () => {
          const text = Buffer.concat(chunks).toString('latin1');
          resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text: text.slice(text.indexOf('\r\n\r\n') + 4) });
        });
        const head = [
          `${method} ${path} HTTP/1.1`,
          ...(hostLine === undefined ? [] : [hostLine]),
          'content-type: application/json',
          'accept: application/json, text/event-stream',
          `content-length: ${Buffer.byteLength(body)}`,
          'connection: close',
        ];
        socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), Buffer.from(body)]));
      });
    const web = { handle: async (_req: unknown, res: ServerResponse) => void res.end('page'), sessionPath: (id: string) => `/sessions/${id}` };

    it('refuses a Host with userinfo as foreign on every path, REST, /mcp, the web interface and /healthz', async () => {
      const { api_key: key } = await backend.admin!.createGuru({ slug: 'docs' });
      const server = await start({ mcp: createMcpHttpHandler({ backend, logger: silentLogger, requireBearer: false }), web });
      const port = new URL(server.url).port;
      const host = `evil.example@127.0.0.1:${port}`;
      for (const [method, path, body] of [
        ['GET', '/healthz', ''],
        ['POST', '/api/v1/docs/semantic-search/', JSON.stringify({ question: 'x' })],
        ['POST', '/mcp', JSON.stringify(INITIALIZE)],
        ['GET', '/', ''],
      ] as const) {
        const reply = await request(`${server.url}${path}`, { method, headers: { host, 'x-api-key': key, ...JSON_AND_SSE }, ...(body === '' ? {} : { body }) });
        expect(reply.statusCode, path).toBe(403);
        const json = await reply.body.json();
        const message = `Invalid Host header: ${host}`;
        expect(json, path).toEqual(path === '/mcp' ? { jsonrpc: '2.0', error: { code: -32000, message }, id: null } : { msg: message });
      }
    });

    it('never answers a malformed Host with a 500, nor lets it past the check', async () => {
      const mcp = createMcpHttpHandler({ backend, logger: silentLogger, requireBearer: false });
      const loopback = await start({ mcp, web });
      const wildcard = await start({ host: '0.0.0.0', mcp: createMcpHttpHandler({ backend, logger: silentLogger, requireBearer: true }), web });
      const malformed = [
        'host:',
        'host: ',
        'host: user:pass@localhost',
        'host: evil.example@127.0.0.1',
        'host: lo calhost',
        'host: 127.0.0.1 :80',
        'host: [::1',
        'host: ::1',
        'host: [::1]]',
        'host: [127.0.0.1]',
        'host: [::1%25lo]',
        'host: \u00ec\u00bb\u00a5calhost',
        'host: l\u00f3calhost',
        'host: localhost:99999',
        'host: localhost:65536',
        'host: localhost:-1',
        'host: localhost:8787:8787',
        'host: localhost:abc',
        'host: 127.0.0.1/x',
        'host: 127.0.0.1?x',
        'host: 127.0.0.1#x',
        'host: 127.0.0.1\\x',
        'host: %6cocalhost',
      ];
      for (const server of [loopback, wildcard]) {
        const port = new URL(server.url).port;
        for (const hostLine of malformed) {
          for (const [method, path, body] of [
            ['GET', '/healthz', ''],
            ['POST', '/mcp', JSON.stringify(INITIALIZE)],
            ['GET', '/api/v1/docs/data-sources/', ''],
            ['GET', '/', ''],
          ] as const) {
            const reply = await rawRequest(port, method, path, hostLine, body);
            const what = `${server.url} ${method} ${path} ${JSON.stringify(hostLine)}`;
            // Refused: by node's parser (400) or by the Host check (403), never served, never a crash.
            expect([400, 403], what).toContain(reply.status);
          }
        }
        // A Host that is well formed still passes (on loopback: loopback names only).
        expect((await rawRequest(port, 'GET', '/healthz', `host: localhost:${port}`)).status).toBe(200);
        expect((await rawRequest(port, 'GET', '/healthz', 'host: [::1]:8787')).status).toBe(200);
      }
    });
  });

  describe('the Origin of MCP requests', () => {
    const initialize = (base: string, headers: Record<string, string>) =>
      request(`${base}/mcp`, { method: 'POST', headers: { ...JSON_AND_SSE, ...headers }, body: JSON.stringify(INITIALIZE) });

    const statusOf = async (base: string, headers: Record<string, string>) => {
      const reply = await initialize(base, headers);
      await reply.body.text();
      return reply.statusCode;
    };

    it('refuses pages of other origins on a loopback binding, and serves loopback pages and clients without Origin', async () => {
      const server = await start({ mcp: createMcpHttpHandler({ backend, logger: silentLogger, requireBearer: false }) });
      const port = new URL(server.url).port;
      for (const origin of ['http://evil.example', `http://evil.example:${port}`, 'https://127.0.0.1.evil.example', 'null', 'file:///tmp/x.html']) {
        const reply = await initialize(server.url, { origin });
        expect(reply.statusCode, origin).toBe(403);
        expect(await reply.body.json(), origin).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: `Invalid Origin header: ${origin}` }, id: null });
      }
      for (const origin of [server.url, `http://localhost:${port}`, 'http://localhost:5173', 'http://[::1]:3000', 'https://127.0.0.1']) {
        expect(await statusOf(server.url, { origin }), origin).toBe(200);
      }
      expect(await statusOf(server.url, {})).toBe(200);

      // Every method of the endpoint is checked, before the session is looked at.
      const stream = await request(`${server.url}/mcp`, { method: 'GET', headers: { origin: 'http://evil.example', accept: 'text/event-stream' } });
      expect(stream.statusCode).toBe(403);
      await stream.body.text();

      // REST is not a browser endpoint (its key header needs a CORS grant): unchanged.
      const health = await request(`${server.url}/healthz`, { headers: { origin: 'http://evil.example' } });
      expect(health.statusCode).toBe(200);
      await health.body.text();
    });

    it('serves only its own origin on a non-loopback binding', async () => {
      const server = await start({ host: '0.0.0.0', mcp: createMcpHttpHandler({ backend, logger: silentLogger, requireBearer: false }) });
      const base = `http://127.0.0.1:${new URL(server.url).port}`;
      // Behind a proxy that ends TLS the Host header keeps the page's name; its port must match.
      expect(await statusOf(base, { host: 'guru.example.com', origin: 'https://guru.example.com' })).toBe(200);
      expect(await statusOf(base, { host: 'guru.example.com:443', origin: 'https://guru.example.com' })).toBe(200);
      expect(await statusOf(base, { host: 'guru.example.com:8787', origin: 'http://guru.example.com:8787' })).toBe(200);
      expect(await statusOf(base, { host: 'guru.example.com:8787', origin: 'https://guru.example.com' })).toBe(403);
      expect(await statusOf(base, { host: 'guru.example.com', origin: 'http://localhost:5173' })).toBe(403);
      expect(await statusOf(base, { host: 'guru.example.com', origin: 'http://other.example.com' })).toBe(403);
      expect(await statusOf(base, { host: 'guru.example.com' })).toBe(200);
    });
  });
});
