import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRateLimiter, type OpenedRateLimiter } from '../../src/compose.js';
import { Config } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createMcpHttpHandler } from '../../src/mcp/http.js';
import type { McpHttpHandler, McpHttpHandlerOptions } from '../../src/mcp/http.js';
import { INITIALIZE, JSON_AND_SSE } from '../support/mcp-requests.js';
import { ERAS, INSTALL_GUIDE, collectProgress, newClient, openTestBackend, subscribe } from './support.js';
import type { ProtocolRevision, TestBackend } from './support.js';
import { answerOf } from '../support/mcp-answer.js';

/** Opens a session the way a client that never sends DELETE does; resolves with its id once the reply is read. */
async function initialize(url: URL, key?: string): Promise<string> {
  const headers = key === undefined ? JSON_AND_SSE : { ...JSON_AND_SSE, authorization: `Bearer ${key}` };
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(INITIALIZE) });
  expect(response.status).toBe(200);
  await response.text();
  return response.headers.get('mcp-session-id')!;
}

/** The status of a tools/list in session `id`: 200 while it lives, 404 once it has ended. */
async function listToolsIn(url: URL, id: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...JSON_AND_SSE, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  await response.text();
  return response.status;
}

interface Running {
  readonly url: URL;
  readonly handler: McpHttpHandler;
  close(): Promise<void>;
}

type HandlerSettings = Omit<McpHttpHandlerOptions, 'backend' | 'logger' | 'requireBearer'>;

async function start(test: TestBackend, requireBearer: boolean, settings: HandlerSettings = {}): Promise<Running> {
  const handler = createMcpHttpHandler({ backend: test.backend, logger: silentLogger, requireBearer, ...settings });
  const server: Server = createServer((req, res) => {
    if (req.url === '/mcp') {
      void handler.handle(req, res);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    handler,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function connect(
  url: URL,
  apiKey?: string,
  revision: ProtocolRevision = '2025-11-25',
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(url, {
    ...(apiKey === undefined ? {} : { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }),
  });
  const client = newClient(revision);
  await client.connect(transport);
  return { client, transport };
}

describe('MCP over streamable HTTP', () => {
  let test: TestBackend;
  let running: Running | undefined;
  const clients: Client[] = [];

  beforeEach(async () => {
    test = await openTestBackend();
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    await running?.close();
    running = undefined;
    await test.close();
  });

  /** What both eras get over HTTP; the 2025 session mechanics follow below. */
  describe.each(ERAS)('in both eras (%s)', (era) => {
    async function open(apiKey?: string): Promise<Client> {
      const { client } = await connect(running!.url, apiKey, era);
      clients.push(client);
      return client;
    }

    it('serves tools, a question with streamed progress, and resources', async () => {
      await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
      running = await start(test, false);
      const client = await open();
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('create_guru');

      const added = (await client.callTool({
        name: 'add_sources',
        arguments: { text_sources: [{ name: 'Install guide', content: INSTALL_GUIDE }], wait: true },
      })) as CallToolResult;
      expect(added.isError).toBeFalsy();

      const progress = collectProgress(client);
      const asked = (await client.callTool({
        name: 'ask',
        arguments: { question: 'How do I install Frobnicator?' },
        _meta: { progressToken: 'http-1' },
      })) as CallToolResult;
      const answer = answerOf(asked);
      expect(answer.references.map((reference) => reference.title)).toEqual(['Install guide']);
      const messages = progress.map((item) => item.message ?? '');
      expect(messages.filter((message) => message.startsWith('» ')).length).toBeGreaterThan(0);
      expect(messages.filter((message) => !message.startsWith('» ')).join('')).toBe(answer.content);

      const { contents } = await client.readResource({ uri: answer.question_url });
      expect(String((contents[0] as { text: string }).text)).toContain('How do I install Frobnicator?');
    });

    it("notifies a client subscribed to a guru's data sources", async () => {
      await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
      running = await start(test, false, { dataSourcePollMs: 25 });
      const client = await open();
      const updated = new Promise<string>((resolve) => {
        client.setNotificationHandler('notifications/resources/updated', (notification) => resolve(notification.params.uri));
      });
      await subscribe(client, era, 'guru://frob/data-sources');
      await test.backend.assistant.createDataSources('frob', { text_sources: [{ name: 'Install guide', content: INSTALL_GUIDE }] });
      expect(await updated).toBe('guru://frob/data-sources');
    });

    it("binds every request to its key's guru, and refuses a client without a key", async () => {
      await test.backend.admin!.createGuru({ slug: 'frob' });
      const pancakeKey = (await test.backend.admin!.createGuru({ slug: 'pancakes' })).api_key;
      running = await start(test, true);
      const client = await open(pancakeKey);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).not.toContain('list_gurus');
      expect(names).not.toContain('create_guru');

      const added = (await client.callTool({
        name: 'add_sources',
        arguments: { text_sources: [{ name: 'Batter', content: 'Mix flour, eggs and milk.' }] },
      })) as CallToolResult;
      expect(added.isError).toBeFalsy();
      expect((await test.backend.assistant.listDataSources('pancakes', { page: 1, page_size: 10 })).count).toBe(1);
      const other = (await client.callTool({ name: 'list_sources', arguments: { guru_slug: 'frob' } })) as CallToolResult;
      expect(other.isError).toBe(true);
      expect(String((other.content[0] as { text: string }).text)).toContain('limited to the guru "pancakes"');

      await expect(connect(running.url, undefined, era)).rejects.toThrow();
    });
    describe('the rate limit', () => {
      let limiter: OpenedRateLimiter;
      const search = (client: Client, externalUserId: string) =>
        client.callTool({ name: 'semantic_search', arguments: { question: 'install', external_user_id: externalUserId } }) as Promise<CallToolResult>;
      const refusal = (seconds: number) =>
        `Rate limit exceeded\nWait ${seconds} seconds before calling again: calls are limited per guru and end user (external_user_id), as the server's GURU_RATE_LIMIT_PER_MINUTE sets.`;

      beforeEach(async () => {
        limiter = await openRateLimiter(Config.parse({ dataDir: test.dir, rateLimitPerMinute: 2 }), silentLogger);
      });

      afterEach(async () => {
        await limiter.close();
      });

      it('limits tool calls per guru and end user as REST does, with the spec\'s 429 message and what to do', async () => {
        await test.backend.admin!.createGuru({ slug: 'frob' });
        running = await start(test, false, { limiter });
        const client = await open();
        expect((await search(client, 'ann')).isError).toBeFalsy();
        expect((await search(client, 'ann')).isError).toBeFalsy();
        const refused = await search(client, 'ann');
        expect(refused).toMatchObject({ isError: true, content: [{ type: 'text', text: refusal(30) }] });
        // Every keyless client is the same caller; another end user has a window of their own; guru administration is not limited.
        expect((await search(await open(), 'ann')).isError).toBe(true);
        expect((await search(client, 'bob')).isError).toBeFalsy();
        for (let i = 0; i < 4; i++) expect(((await client.callTool({ name: 'list_gurus', arguments: {} })) as CallToolResult).isError).toBeFalsy();
        // One limiter, one store: REST requests of the same guru and end user share the window.
        expect((await limiter.consume({ guru: 'frob', apiKey: 'a REST key', externalUserId: 'ann' })).allowed).toBe(false);
        expect((await limiter.consume({ guru: 'frob', apiKey: 'a REST key', externalUserId: 'carol' })).allowed).toBe(true);
        // Reading a resource is the REST request it stands for (listing sources), charged to the caller.
        await client.readResource({ uri: 'guru://frob/data-sources' });
        await client.readResource({ uri: 'guru://frob/sessions' });
        await expect(client.readResource({ uri: 'guru://frob/data-sources' })).rejects.toThrow(
          'Request was throttled. Expected available in 30 seconds. Wait 30 seconds before calling again',
        );
      });

      it('limits a key to ten times that, and an erase drops the end user\'s window', async () => {
        const key = (await test.backend.admin!.createGuru({ slug: 'frob' })).api_key;
        running = await start(test, true, { limiter });
        const client = await open(key);
        for (let i = 0; i < 19; i++) expect((await search(client, `user-${i}`)).isError, `user ${i}`).toBeFalsy();
        const erased = (await client.callTool({ name: 'erase_enduser_data', arguments: { external_user_id: 'user-0' } })) as CallToolResult;
        expect(erased.isError).toBeFalsy();
        // The erase took the key's 20th call; its window for user-0 is gone, the key's is not.
        expect((await limiter.consume({ guru: 'frob', apiKey: 'another key', externalUserId: 'user-0' })).allowed).toBe(true);
        expect((await limiter.consume({ guru: 'frob', apiKey: 'another key', externalUserId: 'user-0' })).allowed).toBe(true);
        const refused = await search(client, 'someone-new');
        expect(refused.isError).toBe(true);
        expect(String((refused.content[0] as { text: string }).text)).toMatch(/^Rate limit exceeded\nWait \d+ seconds? before calling again/);
        // Another key of the guru has an allowance of its own.
        const another = await open((await test.backend.admin!.createApiKey('frob')).api_key);
        expect((await search(another, 'someone-new')).isError).toBeFalsy();
      });
    });
  });

  /** 2026-07-28 listen streams are acknowledged whatever they name, so the guru boundary must hold in what they hear. */
  describe('2026-07-28 listen streams with bearer keys', () => {
    it("tells a key's client nothing about another guru's data sources, though another client listens to them", async () => {
      const frobKey = (await test.backend.admin!.createGuru({ slug: 'frob' })).api_key;
      const pancakeKey = (await test.backend.admin!.createGuru({ slug: 'pancakes' })).api_key;
      running = await start(test, true, { dataSourcePollMs: 25 });
      const frob = (await connect(running.url, frobKey, '2026-07-28')).client;
      const pancakes = (await connect(running.url, pancakeKey, '2026-07-28')).client;
      clients.push(frob, pancakes);

      const heardByPancakes: string[] = [];
      const pancakesUpdated = new Promise<void>((resolve) => {
        pancakes.setNotificationHandler('notifications/resources/updated', (notification) => {
          heardByPancakes.push(notification.params.uri);
          if (notification.params.uri === 'guru://pancakes/data-sources') resolve();
        });
      });
      const frobUpdated = new Promise<void>((resolve) => {
        frob.setNotificationHandler('notifications/resources/updated', () => resolve());
      });
      await subscribe(frob, '2026-07-28', 'guru://frob/data-sources');
      await pancakes.listen({ resourceSubscriptions: ['guru://frob/data-sources', 'guru://pancakes/data-sources'] });

      await test.backend.assistant.createDataSources('frob', { text_sources: [{ name: 'Install guide', content: INSTALL_GUIDE }] });
      await frobUpdated;
      // Updates travel in order on each stream: had the frob one reached pancakes, it would come before this.
      await test.backend.assistant.createDataSources('pancakes', { text_sources: [{ name: 'Batter', content: 'Mix flour, eggs and milk.' }] });
      await pancakesUpdated;
      expect(heardByPancakes).not.toContain('guru://frob/data-sources');
    });
  });

  describe('2025-11-25 sessions', () => {
    describe('on loopback, without keys', () => {
      beforeEach(async () => {
        await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
        running = await start(test, false);
      });

      it('serves a session until a DELETE ends it', async () => {
        const { client, transport } = await connect(running!.url);
        clients.push(client);
        expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
        expect((await client.listTools()).tools.length).toBeGreaterThan(0);

        const sessionId = transport.sessionId!;
        await transport.terminateSession();
        const after = await fetch(running!.url, {
          method: 'POST',
          headers: { ...JSON_AND_SSE, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        });
        expect(after.status).toBe(404);
        expect(await after.json()).toMatchObject({ jsonrpc: '2.0', error: { message: 'Session not found' }, id: null });
      });

      it('keeps sessions apart', async () => {
        const one = await connect(running!.url);
        const two = await connect(running!.url);
        clients.push(one.client, two.client);
        expect(one.transport.sessionId).not.toBe(two.transport.sessionId);
        await one.transport.terminateSession();
        expect((await two.client.listTools()).tools.length).toBeGreaterThan(0);
      });

      it('answers requests without a valid session with JSON-RPC errors', async () => {
        const noSession = await fetch(running!.url, {
          method: 'POST',
          headers: JSON_AND_SSE,
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        expect(noSession.status).toBe(400);
        expect(await noSession.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });

        const unknown = await fetch(running!.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': 'nope' } });
        expect(unknown.status).toBe(404);

        const broken = await fetch(running!.url, { method: 'POST', headers: JSON_AND_SSE, body: '{not json' });
        expect(broken.status).toBe(400);
        expect(await broken.json()).toMatchObject({ error: { code: -32700 } });

        const put = await fetch(running!.url, { method: 'PUT', headers: JSON_AND_SSE, body: '{}' });
        expect(put.status).toBe(405);
        expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
      });

      it('answers a body over 4 MiB with 413 and closes the connection, declared or streamed', async () => {
        const big = JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, padding: 'x'.repeat(4 * 1024 * 1024) } });
        const declared = await request(running!.url, { method: 'POST', headers: JSON_AND_SSE, body: big });
        expect(declared.statusCode).toBe(413);
        expect(declared.headers.connection).toBe('close');
        expect(await declared.body.json()).toMatchObject({ jsonrpc: '2.0', error: { message: 'Request body too large (limit 4 MiB)' }, id: null });

        const chunks = Array.from({ length: 5 }, () => Buffer.alloc(1024 * 1024, 'y'));
        const streamed = await request(running!.url, { method: 'POST', headers: JSON_AND_SSE, body: Readable.from(chunks) });
        expect(streamed.statusCode).toBe(413);
        expect(streamed.headers.connection).toBe('close');
        expect(await streamed.body.json()).toMatchObject({ error: { message: 'Request body too large (limit 4 MiB)' } });

        // The server itself is unharmed.
        expect(await listToolsIn(running!.url, await initialize(running!.url))).toBe(200);
      });

      it('refuses new requests once closed', async () => {
        await running!.handler.close();
        const response = await fetch(running!.url, { method: 'POST', headers: JSON_AND_SSE, body: JSON.stringify(INITIALIZE) });
        expect(response.status).toBe(503);
      });
    });

    describe('session lifetime', () => {
      let now: number;
      const clock = () => now;

      beforeEach(() => {
        now = Date.UTC(2026, 0, 1);
      });

      it('ends a session idle for longer than sessionIdleMs, and only that one', async () => {
        running = await start(test, false, { sessionIdleMs: 60_000, clock });
        const forgotten = await initialize(running.url);
        const used = await initialize(running.url);
        now += 40_000;
        expect(await listToolsIn(running.url, used)).toBe(200);
        now += 30_000;
        // Opening a session looks for idle ones (a timer does too, in real time).
        const fresh = await initialize(running.url);

        expect(await listToolsIn(running.url, forgotten)).toBe(404);
        expect(await listToolsIn(running.url, used)).toBe(200);
        expect(await listToolsIn(running.url, fresh)).toBe(200);
      });

      it('keeps a session whose GET stream is open, however long it is quiet', async () => {
        running = await start(test, false, { sessionIdleMs: 60_000, clock });
        const listening = await initialize(running.url);
        const stream = new AbortController();
        const events = await fetch(running.url, {
          headers: { accept: 'text/event-stream', 'mcp-session-id': listening, 'mcp-protocol-version': '2025-06-18' },
          signal: stream.signal,
        });
        expect(events.status).toBe(200);
        try {
          now += 10 * 60_000;
          await initialize(running.url);
          expect(await listToolsIn(running.url, listening)).toBe(200);
        } finally {
          stream.abort();
        }
      });

      it('keeps at most maxSessions, ending the least recently used first', async () => {
        running = await start(test, false, { maxSessions: 2, clock });
        const first = await initialize(running.url);
        const second = await initialize(running.url);
        now += 1_000;
        expect(await listToolsIn(running.url, first)).toBe(200);
        const third = await initialize(running.url);

        expect(await listToolsIn(running.url, second)).toBe(404);
        expect(await listToolsIn(running.url, first)).toBe(200);
        expect(await listToolsIn(running.url, third)).toBe(200);
      });

      it("never ends another guru's session in use to make room: only idle ones, or the newcomer's guru's own", async () => {
        const frobKey = (await test.backend.admin!.createGuru({ slug: 'frob' })).api_key;
        const pancakeKey = (await test.backend.admin!.createGuru({ slug: 'pancakes' })).api_key;
        running = await start(test, true, { maxSessions: 1, clock });
        const live = await initialize(running.url, frobKey);
        const stream = new AbortController();
        const events = await fetch(running.url, {
          headers: { accept: 'text/event-stream', 'mcp-session-id': live, 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${frobKey}` },
          signal: stream.signal,
        });
        expect(events.status).toBe(200);
        try {
          for (let i = 0; i < 3; i += 1) await initialize(running.url, pancakeKey);
          const listed = await fetch(running.url, {
            method: 'POST',
            headers: { ...JSON_AND_SSE, 'mcp-session-id': live, 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${frobKey}` },
            body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
          });
          await listed.text();
          expect(listed.status).toBe(200);
        } finally {
          stream.abort();
        }
      });

      it('refuses settings that would end every session at once', () => {
        expect(() => createMcpHttpHandler({ backend: test.backend, logger: silentLogger, requireBearer: false, maxSessions: 0 })).toThrow(RangeError);
        expect(() => createMcpHttpHandler({ backend: test.backend, logger: silentLogger, requireBearer: false, sessionIdleMs: 0 })).toThrow(RangeError);
      });
    });

    describe('with a bearer key required', () => {
      let frobKey: string;
      let pancakeKey: string;

      beforeEach(async () => {
        frobKey = (await test.backend.admin!.createGuru({ slug: 'frob' })).api_key;
        pancakeKey = (await test.backend.admin!.createGuru({ slug: 'pancakes' })).api_key;
        running = await start(test, true);
      });

      it('answers 401 with a challenge without a key or with a wrong one', async () => {
        const missing = await fetch(running!.url, { method: 'POST', headers: JSON_AND_SSE, body: JSON.stringify(INITIALIZE) });
        expect(missing.status).toBe(401);
        expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="guru-mcp"');
        expect(await missing.json()).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringMatching(/^Invalid API key/) } });

        const wrong = await fetch(running!.url, {
          method: 'POST',
          headers: { ...JSON_AND_SSE, authorization: 'Bearer not-a-key' },
          body: JSON.stringify(INITIALIZE),
        });
        expect(wrong.status).toBe(401);
        expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
      });

      // What the session may reach is tested in both eras above; here: who may use it.
      it('keeps a session to its key', async () => {
        const { client, transport } = await connect(running!.url, pancakeKey);
        clients.push(client);

        // The session belongs to the pancakes key: another guru's key cannot use it.
        const hijack = await fetch(running!.url, {
          method: 'POST',
          headers: { ...JSON_AND_SSE, authorization: `Bearer ${frobKey}`, 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
        });
        expect(hijack.status).toBe(403);
      });
    });
  });
});
