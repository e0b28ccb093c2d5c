/**
 * The remote adapter against loopback servers that misbehave on purpose:
 * throttling, failures, timeouts, malformed bodies, streams. What it does with
 * a well-behaved server is the contract suite's business (test/contract/).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { GuruError } from '../../src/core/errors.js';
import { createLogger } from '../../src/log.js';
import { RemoteAssistant, type RemoteAssistantOptions } from '../../src/remote/remote-assistant.js';
import { collectProgress, connectClient, textOf } from '../mcp/support.js';
import { closedPort, json, startLoopbackService, type LoopbackService, type Responder } from './loopback-service.js';

const KEY = 'guru_test-key-that-must-never-be-logged';

const SEARCH = {
  sources: [{ title: 'Install guide', link: null, display_link: false, icon_url: '', labels: ['Text'] }],
  total_sources: 1,
};

const ANSWER = {
  slug: 'hello-1a2b3c',
  content: 'Hello, world.',
  question: 'Say hello',
  date_updated: '2026-11-20',
  trust_score: 80,
  references: [{ link: 'https://example.com/hello', icon: '', title: 'Hello page' }],
  session_id: 'session-1',
  question_url: 'https://example.com/q/hello',
  can_receive_feedback: true,
};

const EMPTY_LISTING = { count: 0, next: null, previous: null, results: [] };

describe('RemoteAssistant', () => {
  let service: LoopbackService | undefined;
  let assistant: RemoteAssistant | undefined;
  const logLines: string[] = [];

  afterEach(async () => {
    await assistant?.close();
    await service?.close();
    assistant = undefined;
    service = undefined;
    logLines.length = 0;
  });

  async function connect(respond: Responder, options: Partial<RemoteAssistantOptions> = {}) {
    service = await startLoopbackService(respond);
    assistant = new RemoteAssistant({
      baseUrl: service.baseUrl,
      apiKey: KEY,
      logger: createLogger('debug', (line) => logLines.push(line)),
      retry: { backoffMs: 1 },
      ...options,
    });
    return { service, assistant };
  }

  /** The rejection of `call`, which must be a GuruError. */
  async function failureOf(call: Promise<unknown>): Promise<GuruError> {
    const error = await call.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(GuruError);
    return error as GuruError;
  }

  const warnings = () => logLines.filter((line) => / warn /.test(line));

  describe('throttling', () => {
    it('waits the seconds the service names, says so, and then succeeds', async () => {
      const { service, assistant } = await connect((_request, res, index) => {
        if (index === 0) json(res, 429, { msg: 'Request was throttled. Expected available in 1 seconds.' });
        else json(res, 200, ANSWER);
      });
      const stages: string[] = [];
      const answer = await assistant.ask('frob', { question: 'Say hello', fetch_existing: false }, { onStage: (line) => stages.push(line) });
      expect(answer).toEqual(ANSWER);
      expect(service.requests).toHaveLength(2);
      expect(stages).toEqual(['Rate limited by the service; retrying in 1 s']);
      expect(warnings()).toHaveLength(1);
      expect(warnings()[0]).toContain('rate limited by the guru service; retrying');
      expect(warnings()[0]).toContain('seconds=1');
      expect(warnings()[0]).toContain('endpoint="POST /api/v1/frob/answer/"');
    });

    it('honours a Retry-After header when the message names no seconds', async () => {
      const { service, assistant } = await connect((_request, res, index) => {
        if (index === 0) json(res, 429, { error: 'Rate limit exceeded' }, { 'retry-after': '1' });
        else json(res, 200, SEARCH);
      });
      await expect(assistant.semanticSearch('frob', { question: 'install' })).resolves.toEqual(SEARCH);
      expect(service.requests).toHaveLength(2);
    });

    it('hands over the 429 at once when the wait is longer than it may wait', async () => {
      const { service, assistant } = await connect((_request, res) => {
        json(res, 429, { msg: 'Request was throttled. Expected available in 3600 seconds.' });
      });
      const error = await failureOf(assistant.listSessions('frob', { page_num: 1, search_query: '' }));
      expect(error).toMatchObject({
        status: 429,
        field: 'msg',
        message: 'Request was throttled. Expected available in 3600 seconds.',
        retryAfterSeconds: 3600,
      });
      expect(service.requests).toHaveLength(1);
      expect(warnings()).toEqual([]);
    });

    it('hands over the 429 once its waits are spent', async () => {
      const { service, assistant } = await connect(
        (_request, res) => json(res, 429, { msg: 'Request was throttled. Expected available in 1 seconds.' }),
        { retry: { maxThrottleWaits: 1 } },
      );
      const error = await failureOf(assistant.createDataSources('frob', { text_sources: [{ name: 'a', content: 'a' }] }));
      expect(error).toMatchObject({ status: 429, message: 'Request was throttled. Expected available in 1 seconds.' });
      expect(service.requests).toHaveLength(2);
    });

    it('stops waiting when the caller aborts', async () => {
      const { service, assistant } = await connect((_request, res) =>
        json(res, 429, { msg: 'Request was throttled. Expected available in 30 seconds.' }),
      );
      const controller = new AbortController();
      const asking = assistant.ask(
        'frob',
        { question: 'Say hello', fetch_existing: false },
        { signal: controller.signal, onStage: () => controller.abort() },
      );
      await expect(asking).rejects.toMatchObject({ name: 'AbortError' });
      expect(service.requests).toHaveLength(1);
    });

    it('hands over a 429 that says nothing about when to come back', async () => {
      const { service, assistant } = await connect((_request, res) => json(res, 429, { error: 'Rate limit exceeded' }));
      await expect(assistant.semanticSearch('frob', { question: 'x' })).rejects.toMatchObject({ status: 429, field: 'error', message: 'Rate limit exceeded' });
      expect(service.requests).toHaveLength(1);
    });
  });

  describe('server failures', () => {
    it('retries an idempotent call after a 5xx', async () => {
      const { service, assistant } = await connect((_request, res, index) => {
        if (index === 0) json(res, 503, { msg: 'Service busy' });
        else json(res, 200, EMPTY_LISTING);
      });
      await expect(assistant.listDataSources('frob', { page: 2, page_size: 10 })).resolves.toEqual({ count: 0, page: 2, page_size: 10, results: [] });
      expect(service.requests.map((request) => request.url)).toEqual([
        '/api/v1/frob/data-sources/?page=2&page_size=10',
        '/api/v1/frob/data-sources/?page=2&page_size=10',
      ]);
      expect(warnings()[0]).toContain('guru service call failed; retrying');
    });

    it('gives up after its retries, with the last answer', async () => {
      const { service, assistant } = await connect((_request, res) => json(res, 500, { msg: 'Internal server error' }), { retry: { retries: 2, backoffMs: 1 } });
      await expect(assistant.getSession('frob', 'session-1')).rejects.toMatchObject({ status: 500, message: 'Internal server error' });
      expect(service.requests).toHaveLength(3);
    });

    it('never repeats a question after a 5xx', async () => {
      const { service, assistant } = await connect((_request, res, index) => {
        if (index === 0) json(res, 503, { msg: 'Service busy' });
        else json(res, 200, ANSWER);
      });
      await expect(assistant.ask('frob', { question: 'Say hello', fetch_existing: false })).rejects.toMatchObject({
        status: 503,
        message: 'Service busy',
      });
      expect(service.requests).toHaveLength(1);
    });

    it('never repeats adding sources or deleting a session after a 5xx', async () => {
      const { service, assistant } = await connect((_request, res) => json(res, 502, { msg: 'Bad gateway' }));
      await expect(assistant.createDataSources('frob', { text_sources: [{ name: 'a', content: 'a' }] })).rejects.toMatchObject({ status: 502 });
      await expect(assistant.deleteSession('frob', 'session-1')).rejects.toMatchObject({ status: 502 });
      expect(service.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
        'POST /api/v1/frob/data-sources/',
        'DELETE /api/v1/sessions/session-1/delete/',
      ]);
    });

    it('says where a proxy answered with an HTML page instead of the API', async () => {
      const { assistant } = await connect((_request, res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>');
      });
      const error = await failureOf(assistant.listSessions('frob', { page_num: 1, search_query: '' }));
      expect(error.status).toBe(502);
      expect(error.message).toBe(
        `The guru service at ${service!.baseUrl} answered POST /api/v1/frob/sessions/ with HTTP 502 and an HTML page instead of the API's JSON`,
      );
      expect(error.hint).toContain('GURU_API_URL');
    });

    it('says where a web server answered 404 with a page, as when the URL lacks /api/v1', async () => {
      const { assistant } = await connect((_request, res) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<!doctype html><title>Not Found</title>');
      });
      const error = await failureOf(assistant.semanticSearch('frob', { question: 'x' }));
      expect(error).toMatchObject({ status: 502, field: 'error' });
      expect(error.message).toContain('with HTTP 404 and an HTML page');
      expect(error.hint).toContain('GURU_API_URL');
    });

    it('reports a redirect instead of following it', async () => {
      const { assistant } = await connect((_request, res) => {
        res.writeHead(301, { location: 'https://elsewhere.example/api/v1/frob/semantic-search/' });
        res.end();
      });
      const error = await failureOf(assistant.semanticSearch('frob', { question: 'x' }));
      expect(error.status).toBe(502);
      expect(error.message).toContain('with a redirect (HTTP 301 to https://elsewhere.example/api/v1/frob/semantic-search/)');
    });
  });

  describe('network failures', () => {
    it('says the service cannot be reached when the connection is refused', async () => {
      const port = await closedPort();
      assistant = new RemoteAssistant({ baseUrl: `http://127.0.0.1:${port}/api/v1/`, apiKey: KEY, retry: { backoffMs: 1 } });
      const error = await failureOf(assistant.semanticSearch('frob', { question: 'x' }));
      expect(error.status).toBe(502);
      expect(error.message).toBe(
        `Cannot get an answer from the guru service at http://127.0.0.1:${port}/api/v1 (POST /api/v1/frob/semantic-search/): the connection was refused (nothing listens there)`,
      );
      expect(error.hint).toContain('GURU_API_URL');
    });

    it('gives up on a service that does not answer in time', async () => {
      const { service, assistant } = await connect(() => undefined, { timeouts: { requestMs: 200 }, retry: { retries: 0 } });
      const error = await failureOf(assistant.listDataSources('frob', { page: 1, page_size: 10 }));
      expect(error.status).toBe(504);
      expect(error.message).toContain('(GET /api/v1/frob/data-sources/): it did not answer within 200 ms');
      expect(service.requests).toHaveLength(1);
    });

    it('aborts a call when the caller does', async () => {
      let arrived!: () => void;
      const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
      const { assistant } = await connect(() => arrived());
      const controller = new AbortController();
      const asking = assistant.ask('frob', { question: 'Say hello', fetch_existing: false }, { signal: controller.signal });
      await requestArrived;
      controller.abort();
      await expect(asking).rejects.toMatchObject({ name: 'AbortError' });
    });
  });

  describe('session attachments', () => {
    it('finds none, asking nothing: the REST API serves no attached files, and the hint says so', async () => {
      const { assistant, service } = await connect((_request, res) => json(res, 200, {}));
      const error = await failureOf(assistant.sessionAttachment('frob', 'session-1', 1));
      expect(error).toMatchObject({ status: 404, message: 'Attachment not found' });
      expect(error.hint).toMatch(/REST API does not serve the files attached/);
      expect(service.requests).toHaveLength(0);
    });
  });

  describe('responses', () => {
    it('names the endpoint and the field of a response that does not fit the API', async () => {
      const { assistant } = await connect((_request, res) =>
        json(res, 200, { sources: [{ title: 'Install guide', display_link: false, icon_url: '', labels: [] }], total_sources: 1 }),
      );
      const error = await failureOf(assistant.semanticSearch('frob', { question: 'install' }));
      expect(error.status).toBe(502);
      expect(error.message).toMatch(
        /^The guru service answered POST \/api\/v1\/frob\/semantic-search\/ with a response that does not fit the API: sources\[0\]\.link: /,
      );
    });

    it('says so when a 200 carries something that is not JSON', async () => {
      const { assistant } = await connect((_request, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('OK');
      });
      const error = await failureOf(assistant.listSessions('frob', { page_num: 1, search_query: '' }));
      expect(error.status).toBe(502);
      expect(error.message).toContain('with HTTP 200 and a body that is not JSON');
    });

    it('accepts fields it does not know', async () => {
      const { assistant } = await connect((_request, res) =>
        json(res, 200, {
          ...SEARCH,
          sources: SEARCH.sources.map((source) => ({ ...source, score: 0.93 })),
          search_id: 'abc',
        }),
      );
      const result = await assistant.semanticSearch('frob', { question: 'install' });
      expect(result).toMatchObject(SEARCH);
      expect(result).toHaveProperty('search_id', 'abc');
    });

    it('keeps the message, status, field and extra members of the service\'s errors', async () => {
      const usersResults = [{ user_index: 0, external_user_id: 'u1', success: false, errors: ['memory is required'] }];
      const body = { error: 'Failed to process some users', details: ['memory is required'], users_results: usersResults };
      const { assistant } = await connect((_request, res) => json(res, 400, body));
      const error = await failureOf(assistant.createDataSources('frob', { text_sources: [{ name: 'a', content: 'a' }] }));
      expect(error).toMatchObject({ status: 400, field: 'error', message: 'Failed to process some users' });
      expect(error.toBody()).toEqual(body);
    });

    it('passes "Invalid API key" on, with what to check and without the key', async () => {
      const { assistant } = await connect((_request, res) => json(res, 401, { msg: 'Invalid API key' }));
      const error = await failureOf(assistant.listDataSources('frob', { page: 1, page_size: 10 }));
      expect(error).toMatchObject({ status: 401, field: 'msg', message: 'Invalid API key' });
      expect(error.toBody()).toEqual({ msg: 'Invalid API key' });
      expect(error.hint).toContain('GURU_API_KEY');
      expect(error.hint).not.toContain(KEY);
    });

    it('shows the service\'s error in MCP tool results', async () => {
      const { assistant } = await connect((_request, res) => json(res, 401, { error: 'Invalid API key' }));
      const client = await connectClient({ backend: { kind: 'remote', assistant, defaultGuru: 'frob' }, logger: createLogger('error', () => {}) }, '2026-07-28');
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).not.toContain('list_gurus');
        expect(tools.map((tool) => tool.name)).not.toContain('create_guru');
        const result = (await client.callTool({ name: 'semantic_search', arguments: { question: 'install' } })) as CallToolResult;
        expect(result.isError).toBe(true);
        expect(textOf(result).split('\n')[0]).toBe('Invalid API key');
      } finally {
        await client.close();
      }
    });
  });

  describe('streamed answers', () => {
    it('passes the text on as it arrives, then fetches the stored answer', async () => {
      let firstPieceSeen!: () => void;
      const seen = new Promise<void>((resolve) => (firstPieceSeen = resolve));
      const { service, assistant } = await connect(async (request, res, index) => {
        if (index > 0) return json(res, 200, ANSWER);
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.write('Hello, ');
        await seen; // the second piece goes out only once the first reached the caller
        res.end('world.');
      });
      const events: string[] = [];
      const answer = await assistant.ask(
        'frob',
        { question: 'Say hello', session_id: 'session-1', external_user_id: 'u1', fetch_existing: false },
        {
          onText: (delta) => {
            events.push(`text ${delta}`);
            firstPieceSeen();
          },
        },
      );
      events.push(`answer ${answer.slug}`);
      expect(events).toEqual(['text Hello, ', 'text world.', `answer ${ANSWER.slug}`]);
      expect(answer).toEqual(ANSWER);
      expect(service.requests.map((request) => request.body)).toEqual([
        { question: 'Say hello', session_id: 'session-1', external_user_id: 'u1', fetch_existing: false, stream: true },
        { question: 'Say hello', session_id: 'session-1', external_user_id: 'u1', fetch_existing: true, stream: false },
      ]);
    });

    it('keeps characters split between two pieces whole', async () => {
      const bytes = Buffer.from('Grüße 👋', 'utf8');
      const { assistant } = await connect(async (_request, res, index) => {
        if (index > 0) return json(res, 200, { ...ANSWER, content: 'Grüße 👋' });
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.write(bytes.subarray(0, 3)); // ends inside the ü
        await new Promise((resolve) => setImmediate(resolve));
        res.end(bytes.subarray(3));
      });
      let text = '';
      const answer = await assistant.ask('frob', { question: 'Say hello', fetch_existing: false }, { onText: (delta) => (text += delta) });
      expect(text).toBe(answer.content);
    });

    it('reaches an MCP client as stage lines before the text, and a wait after the text is left out', async () => {
      const throttled = (res: Parameters<Responder>[1]) => json(res, 429, { msg: 'Request was throttled. Expected available in 1 seconds.' });
      const { service, assistant } = await connect((_request, res, index) => {
        if (index === 0 || index === 2) return throttled(res);
        if (index === 1) {
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
          res.end(ANSWER.content);
          return;
        }
        json(res, 200, ANSWER);
      });
      const client = await connectClient({ backend: { kind: 'remote', assistant, defaultGuru: 'frob' }, logger: createLogger('error', () => {}) }, '2026-07-28');
      try {
        const progress = collectProgress(client);
        const result = (await client.callTool({ name: 'ask', arguments: { question: 'Say hello' }, _meta: { progressToken: 'p' } })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        expect(service.requests).toHaveLength(4);
        const messages = progress.map((item) => item.message);
        expect(messages[0]).toBe('» Rate limited by the service; retrying in 1 s');
        expect(messages.slice(1).join('')).toBe(ANSWER.content);
      } finally {
        await client.close();
      }
    });

    it('fails without asking again when the stream is refused', async () => {
      const { service, assistant } = await connect((_request, res) =>
        json(res, 400, { msg: 'External user ID mismatch for this session. Code: S-902' }),
      );
      await expect(
        assistant.ask('frob', { question: 'Say hello', session_id: 's', external_user_id: 'bob', fetch_existing: false }, { onText: () => {} }),
      ).rejects.toMatchObject({ status: 400, message: 'External user ID mismatch for this session. Code: S-902' });
      expect(service.requests).toHaveLength(1);
    });
  });

  describe('the API key', () => {
    it('goes with every call and never into the logs or errors', async () => {
      const { service, assistant } = await connect((request, res, index) => {
        if (index === 0) return json(res, 500, { msg: 'Internal server error' }); // retried
        if (request.url.includes('/answer/') && (request.body as { stream?: boolean }).stream) {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(ANSWER.content);
          return;
        }
        if (request.url.includes('/answer/')) return json(res, 200, ANSWER);
        if (request.url.includes('/sessions/')) return json(res, 401, { msg: 'Invalid API key' });
        return json(res, 200, EMPTY_LISTING);
      });
      const errors: unknown[] = [];
      await assistant.listDataSources('frob', { page: 1, page_size: 10 });
      await assistant.ask('frob', { question: 'Say hello', fetch_existing: false }, { onText: () => {} });
      await assistant.deleteSession('frob', 'session-1').catch((error: unknown) => errors.push(error));

      expect(service.requests).toHaveLength(5);
      expect(service.requests.map((request) => request.headers['x-api-key'])).toEqual(Array(5).fill(KEY));
      expect(errors).toHaveLength(1);
      expect(logLines.length).toBeGreaterThanOrEqual(5);
      expect(logLines.join('\n')).not.toContain(KEY);
      expect(JSON.stringify(errors.map((error) => ({ ...(error as GuruError), message: (error as GuruError).message })))).not.toContain(KEY);
    });

    it('is the key of the guru a call is for, when given per guru', async () => {
      const { service, assistant } = await connect((_request, res) => json(res, 200, SEARCH), {
        apiKey: (guru) => `key-of-${guru}`,
      });
      await assistant.semanticSearch('frob', { question: 'x' });
      await assistant.semanticSearch('other', { question: 'x' });
      expect(service.requests.map((request) => request.headers['x-api-key'])).toEqual(['key-of-frob', 'key-of-other']);
    });
  });
});
