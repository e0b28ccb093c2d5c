import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Assistant } from '../../src/core/assistant.js';
import { openBackend, openRateLimiter, type OpenedBackend, type OpenedRateLimiter } from '../../src/compose.js';
import { Config } from '../../src/config.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { storedRows } from '../support/stored-rows.js';
import { call } from './support.js';

const hasWhenIdle = (assistant: Assistant): assistant is Assistant & { whenIdle(): Promise<void> } =>
  'whenIdle' in assistant && typeof assistant.whenIdle === 'function';

async function whenIdle(backend: OpenedBackend): Promise<void> {
  if (!hasWhenIdle(backend.assistant)) throw new Error('the backend cannot report when processing is done');
  await backend.assistant.whenIdle();
}

describe('REST API', () => {
  let dataDir: string;
  let backend: OpenedBackend;
  let server: RunningHttpServer;
  let base: string;
  let docsKey: string;
  let otherKey: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-rest-'));
    backend = await openBackend(Config.parse({ dataDir }), silentLogger);
    docsKey = (await backend.admin!.createGuru({ slug: 'docs', name: 'Docs' })).api_key;
    otherKey = (await backend.admin!.createGuru({ slug: 'other' })).api_key;
    server = await startHttpServer({
      backend,
      logger: createLogger('debug', (line) => logLines.push(line)),
      host: '127.0.0.1',
      port: 0,
      limiter: await openRateLimiter(Config.parse({ dataDir, rateLimitPerMinute: 0 }), silentLogger),
    });
    base = server.url;

    const created = await call(base, 'POST', '/api/v1/docs/data-sources/', {
      key: docsKey,
      body: {
        text_sources: [
          {
            name: 'Installation',
            content:
              '# Installing the widget\n\nRun `npm install widget` to install the widget. The widget needs Node 20 or newer.\n\n## Configuring\n\nSet WIDGET_COLOR to choose the colour of the widget.',
          },
          { name: 'Billing', content: '# Billing\n\nInvoices are sent on the first day of every month by e-mail.' },
        ],
      },
    });
    expect(created.status).toBe(200);
    await whenIdle(backend);
  });

  afterAll(async () => {
    await server?.close();
    await backend?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  describe('outside /api/v1', () => {
    it('answers GET /healthz', async () => {
      const reply = await call(base, 'GET', '/healthz');
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('application/json');
      expect(reply.json).toEqual({ status: 'ok' });
    });

    it('answers 405 for another method on /healthz and on a REST path', async () => {
      const health = await call(base, 'POST', '/healthz');
      expect(health.status).toBe(405);
      expect(health.headers.allow).toBe('GET, HEAD');

      const answer = await call(base, 'GET', '/api/v1/docs/answer/', { key: docsKey });
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe('POST');
      expect(answer.json).toEqual({ msg: 'Method not allowed' });
    });

    it('answers 404 JSON for unknown routes', async () => {
      for (const path of ['/', '/nope', '/api/v1', '/api/v1/docs/nope/', '/api/v1/docs/answer/extra/', '/mcp']) {
        const reply = await call(base, 'GET', path);
        expect(reply.status, path).toBe(404);
        expect(reply.json, path).toEqual({ msg: 'Not found' });
      }
    });

    it('refuses a Host header that is not loopback, on every route', async () => {
      for (const [method, path] of [
        ['GET', '/healthz'],
        ['GET', '/api/v1/docs/data-sources/'],
        ['POST', '/api/v1/docs/answer/'],
        ['GET', '/nope'],
      ] as const) {
        const reply = await call(base, method, path, { key: docsKey, headers: { host: 'evil.example' }, body: { question: 'x' } });
        expect(reply.status, path).toBe(403);
        expect(reply.json, path).toEqual({ msg: 'Invalid Host header: evil.example' });
      }
      const rebound = await call(base, 'GET', '/healthz', { headers: { host: 'evil.example:8787' } });
      expect(rebound.status).toBe(403);
    });

    it('accepts localhost, 127.0.0.1 and [::1] with any port', async () => {
      for (const host of ['localhost', 'localhost:1234', '127.0.0.1:9', '[::1]', '[::1]:8787']) {
        const reply = await call(base, 'GET', '/healthz', { headers: { host } });
        expect(reply.status, host).toBe(200);
      }
    });
  });

  describe('authentication', () => {
    const endpoints = [
      { method: 'POST', path: '/api/v1/docs/answer/', body: { question: 'How do I install it?' }, field: 'msg' },
      { method: 'POST', path: '/api/v1/docs/semantic-search/', body: { question: 'install' }, field: 'error' },
      { method: 'POST', path: '/api/v1/docs/data-sources/', body: { text_sources: [{ name: 'n', content: 'c' }] }, field: 'msg' },
      { method: 'GET', path: '/api/v1/docs/data-sources/', body: undefined, field: 'msg' },
      { method: 'POST', path: '/api/v1/docs/sessions/', body: {}, field: 'msg' },
      { method: 'POST', path: '/api/v1/sessions/some-session/conversation/', body: undefined, field: 'msg' },
      { method: 'DELETE', path: '/api/v1/sessions/some-session/delete/', body: undefined, field: 'msg' },
      { method: 'POST', path: '/api/v1/docs/crawl/start/', body: { url: 'https://example.com/' }, field: 'msg' },
      { method: 'GET', path: '/api/v1/docs/crawl/1/status/', body: undefined, field: 'msg' },
      { method: 'POST', path: '/api/v1/docs/crawl/1/stop/', body: undefined, field: 'msg' },
      { method: 'POST', path: '/api/v1/youtube/channel/', body: { url: 'https://www.youtube.com/@demo' }, field: 'msg' },
      { method: 'POST', path: '/api/v1/youtube/playlist/', body: { url: 'https://www.youtube.com/playlist?list=PLdemo' }, field: 'msg' },
    ] as const;

    it.each(endpoints)('$method $path refuses a missing or unknown key', async ({ method, path, body, field }) => {
      for (const key of [undefined, '', 'not-a-key']) {
        const reply = await call(base, method, path, { ...(key === undefined ? {} : { key }), body });
        expect(reply.status).toBe(401);
        expect(reply.json).toEqual({ [field]: 'Invalid API key' });
      }
    });

    const guruEndpoints = endpoints.filter(({ path }) => path.includes('/docs/'));

    it.each(guruEndpoints)('$method $path refuses the key of another guru', async ({ method, path, body, field }) => {
      const reply = await call(base, method, path, { key: otherKey, body });
      // The spec lists "Forbidden" for listing sessions; elsewhere another guru's key is no key of this one.
      const expected = path.endsWith('/sessions/') ? { status: 403, body: { msg: 'Forbidden' } } : { status: 401, body: { [field]: 'Invalid API key' } };
      expect(reply.status).toBe(expected.status);
      expect(reply.json).toEqual(expected.body);
    });

    const notFound: Readonly<Record<string, unknown>> = {
      '/api/v1/docs/semantic-search/': { error: 'Guru not found' },
    };

    it.each(guruEndpoints)('$method $path answers a valid key on a guru that does not exist with its not-found message', async ({ method, path, body }) => {
      const missing = path.replace('/docs/', '/nope/');
      const reply = await call(base, method, missing, { key: otherKey, body });
      expect(reply.status).toBe(404);
      expect(reply.json).toEqual(notFound[path] ?? { msg: 'Guru type nope not found' });
    });

    it.each(guruEndpoints)('$method $path answers an invalid key on a guru that does not exist with 401, as on one that does', async ({ method, path, body, field }) => {
      const missing = path.replace('/docs/', '/nope/');
      for (const key of [undefined, 'not-a-key']) {
        const reply = await call(base, method, missing, { ...(key === undefined ? {} : { key }), body });
        expect(reply.status).toBe(401);
        expect(reply.json).toEqual({ [field]: 'Invalid API key' });
      }
    });

    it('lets a key reach only its own guru’s sessions', async () => {
      const answer = await call(base, 'POST', '/api/v1/docs/answer/', { key: docsKey, body: { question: 'How do I install the widget?' } });
      const sessionId = (answer.json as { session_id: string }).session_id;

      const read = await call(base, 'POST', `/api/v1/sessions/${sessionId}/conversation/`, { key: otherKey });
      expect(read.status).toBe(403);
      expect(read.json).toEqual({ msg: "You don't have access to this binge" });

      const remove = await call(base, 'DELETE', `/api/v1/sessions/${sessionId}/delete/`, { key: otherKey });
      expect(remove.status).toBe(403);
      expect(remove.json).toEqual({ msg: 'Forbidden' });

      const listed = await call(base, 'POST', '/api/v1/other/sessions/', { key: otherKey, body: {} });
      expect(listed.status).toBe(200);
      expect(JSON.stringify(listed.json)).not.toContain(sessionId);

      const stillThere = await call(base, 'POST', `/api/v1/sessions/${sessionId}/conversation/`, { key: docsKey });
      expect(stillThere.status).toBe(200);
    });
  });

  describe('endpoints', () => {
    it('asks a question and answers with the Answer object', async () => {
      const reply = await call(base, 'POST', '/api/v1/docs/answer/', {
        key: docsKey,
        body: { question: 'How do I install the widget?', external_user_id: 'user-1' },
      });
      expect(reply.status).toBe(200);
      const answer = reply.json as Record<string, unknown>;
      expect(answer).toMatchObject({ question: 'How do I install the widget?', can_receive_feedback: true });
      expect(answer.content).toContain('npm install widget');
      expect(answer.references).toEqual([expect.objectContaining({ title: expect.stringContaining('Install') })]);
      expect(typeof answer.session_id).toBe('string');
      expect(answer.trust_score).toBeGreaterThan(0);
    });

    it('streams the answer as text, equal to the answer fetched afterwards', async () => {
      const question = 'How do I configure the colour of the widget?';
      const response = await request(`${base}/api/v1/docs/answer`, {
        method: 'POST',
        headers: { 'x-api-key': docsKey, 'content-type': 'application/json' },
        body: JSON.stringify({ question, stream: true, external_user_id: 'streamer' }),
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(response.headers['transfer-encoding']).toBe('chunked');
      const chunks: string[] = [];
      for await (const chunk of response.body) chunks.push(Buffer.from(chunk as Uint8Array).toString('utf8'));
      const streamed = chunks.join('');
      expect(streamed).toContain('WIDGET_COLOR');

      const existing = await call(base, 'POST', '/api/v1/docs/answer/', {
        key: docsKey,
        body: { question, fetch_existing: true, external_user_id: 'streamer' },
      });
      expect(existing.status).toBe(200);
      expect((existing.json as { content: string }).content).toBe(streamed);

      const conversation = await call(base, 'POST', `/api/v1/sessions/${(existing.json as { session_id: string }).session_id}/conversation/`, {
        key: docsKey,
      });
      expect((conversation.json as { conversation: unknown[] }).conversation).toHaveLength(1);
    });

    it('answers a streamed ask that fails before its first byte with a JSON error', async () => {
      const reply = await call(base, 'POST', '/api/v1/docs/answer/', {
        key: docsKey,
        body: { question: 'Anything?', stream: true, session_id: 'no-such-session' },
      });
      expect(reply.status).toBe(400);
      expect(reply.headers['content-type']).toBe('application/json');
      expect(reply.json).toEqual({ msg: 'Session no-such-session not found' });
    });

    it('searches semantically', async () => {
      const reply = await call(base, 'POST', '/api/v1/docs/semantic-search/', { key: docsKey, body: { question: 'monthly invoices' } });
      expect(reply.status).toBe(200);
      expect(reply.json).toMatchObject({ total_sources: 1, sources: [{ title: expect.stringContaining('Billing') }] });
    });

    it('adds and lists data sources, with and without the trailing slash', async () => {
      const created = await call(base, 'POST', '/api/v1/docs/data-sources', {
        key: docsKey,
        body: { text_sources: [{ name: 'Support', content: 'Write to support@example.com for help.' }] },
      });
      expect(created.status).toBe(200);
      expect(created.json).toEqual([expect.objectContaining({ type: 'Text', status: 'success', content: 'Write to support@example.com for help.' })]);
      await whenIdle(backend);

      const listed = await call(base, 'GET', '/api/v1/docs/data-sources', { key: docsKey });
      expect(listed.status).toBe(200);
      const body = listed.json as { count: number; next: unknown; previous: unknown; results: { title: string; status: string }[] };
      expect(body.count).toBe(body.results.length);
      expect(body).toMatchObject({ next: null, previous: null });
      expect(body.results.map((source) => source.status)).toEqual(body.results.map(() => 'SUCCESS'));
      expect(body.results[0]?.title).toContain('Support');
    });

    it('lists, reads and deletes sessions', async () => {
      const asked = await call(base, 'POST', '/api/v1/docs/answer/', {
        key: docsKey,
        body: { question: 'When are invoices sent?', external_user_id: 'session-user' },
      });
      const sessionId = (asked.json as { session_id: string }).session_id;

      const listed = await call(base, 'POST', '/api/v1/docs/sessions/', {
        key: docsKey,
        body: { page_num: 1, external_user_id: 'session-user' },
      });
      expect(listed.status).toBe(200);
      expect(listed.json).toMatchObject({
        today: [{ id: sessionId, guru_type_slug: 'docs', root_question_name: 'When are invoices sent?' }],
        last_week: [],
        older: [],
        has_more: false,
      });

      const emptyBody = await call(base, 'POST', '/api/v1/docs/sessions', { key: docsKey });
      expect(emptyBody.status).toBe(200);

      const read = await call(base, 'POST', `/api/v1/sessions/${sessionId}/conversation`, { key: docsKey });
      expect(read.status).toBe(200);
      expect(read.json).toMatchObject({ binge_id: sessionId, conversation: [{ user_question: 'When are invoices sent?', parent_slug: null }] });

      const removed = await call(base, 'DELETE', `/api/v1/sessions/${sessionId}/delete/`, { key: docsKey });
      expect(removed.status).toBe(200);
      expect(removed.json).toMatchObject({ session_id: sessionId, msg: expect.any(String) });

      const again = await call(base, 'DELETE', `/api/v1/sessions/${sessionId}/delete/`, { key: docsKey });
      expect(again.status).toBe(400);
      expect(again.json).toEqual({ msg: 'Session is already deleted' });

      const gone = await call(base, 'POST', `/api/v1/sessions/${sessionId}/conversation/`, { key: docsKey });
      expect(gone.status).toBe(404);
      expect(gone.json).toEqual({ msg: 'Binge not found' });
    });
  });

  describe('bad requests', () => {
    const labels21 = Array.from({ length: 21 }, (_, i) => `label-${i}`);
    it.each([
      { name: 'ask without a question', method: 'POST', path: '/api/v1/docs/answer/', body: { stream: true }, expected: { msg: 'Question is required' } },
      { name: 'ask with a blank question', method: 'POST', path: '/api/v1/docs/answer/', body: { question: '  ' }, expected: { msg: 'Question is required' } },
      { name: 'ask with a bad attachment', method: 'POST', path: '/api/v1/docs/answer/', body: { question: 'q', images: [{ data: 'x', name: 'a', type: 'image/png' }] }, expected: { msg: 'Images and PDFs must be data URLs: data:<mime>;base64,<payload>' } },
      { name: 'ask with a session id over 256 characters', method: 'POST', path: '/api/v1/docs/answer/', body: { question: 'q', session_id: 's'.repeat(257) }, expected: { msg: 'session_id must be at most 256 characters' } },
      { name: 'ask with a question over 10,000 characters', method: 'POST', path: '/api/v1/docs/answer/', body: { question: 'q'.repeat(10_001) }, expected: { msg: 'question must be at most 10000 characters' } },
      { name: 'search without a question', method: 'POST', path: '/api/v1/docs/semantic-search/', body: { labels: ['x'] }, expected: { error: 'Question is required' } },
      { name: 'search with a question of the wrong type', method: 'POST', path: '/api/v1/docs/semantic-search/', body: { question: 42 }, expected: { error: 'question must be a string' } },
      { name: 'search with more than 20 labels', method: 'POST', path: '/api/v1/docs/semantic-search/', body: { question: 'q', labels: labels21 }, expected: { error: 'labels must have at most 20 items' } },
      { name: 'search with labels of the wrong type', method: 'POST', path: '/api/v1/docs/semantic-search/', body: { question: 'q', labels: 'x' }, expected: { error: 'labels must be an array of strings' } },
      { name: 'search with a label of the wrong type', method: 'POST', path: '/api/v1/docs/semantic-search/', body: { question: 'q', labels: ['a', 7] }, expected: { error: 'labels[1] must be a string' } },
      { name: 'search with a numeric external_user_id', method: 'POST', path: '/api/v1/docs/semantic-search/', body: { question: 'q', external_user_id: 7 }, expected: { error: 'external_user_id must be a string' } },
      { name: 'search with two problems', method: 'POST', path: '/api/v1/docs/semantic-search/', body: { question: 'q', labels: 'x', external_user_id: 7 }, expected: { error: 'labels must be an array of strings; external_user_id must be a string' } },
      { name: 'search with a body that is no object', method: 'POST', path: '/api/v1/docs/semantic-search/', body: ['q'], expected: { error: 'The request must be a JSON object' } },
      { name: 'data sources with nothing to add', method: 'POST', path: '/api/v1/docs/data-sources/', body: {}, expected: { msg: 'Invalid request parameters: at least one of youtube_urls, website_urls, zendesk_urls, jira_urls, confluence_urls, text_sources is required' } },
      { name: 'data sources with a bad text source', method: 'POST', path: '/api/v1/docs/data-sources/', body: { text_sources: [{ name: 'n' }] }, expected: { msg: 'Invalid request parameters: text_sources[0].content is required' } },
      { name: 'data sources with a URL over 4096 characters', method: 'POST', path: '/api/v1/docs/data-sources/', body: { website_urls: [`https://example.com/${'a'.repeat(4096)}`] }, expected: { msg: 'Invalid request parameters: website_urls[0] must be at most 4096 characters' } },
      { name: 'data sources with more than 1500 URLs of a kind', method: 'POST', path: '/api/v1/docs/data-sources/', body: { website_urls: Array.from({ length: 1501 }, (_, i) => `https://example.com/${i}`) }, expected: { msg: 'Invalid request parameters: website_urls must have at most 1500 items' } },
      { name: 'data sources with a text source name over 500 characters', method: 'POST', path: '/api/v1/docs/data-sources/', body: { text_sources: [{ name: 'n'.repeat(501), content: 'c' }] }, expected: { msg: 'Invalid request parameters: text_sources[0].name must be at most 500 characters' } },
      { name: 'reindex without ids', method: 'POST', path: '/api/v1/docs/data-sources/reindex/', body: {}, expected: { msg: 'Invalid request parameters: ids is required' } },
      { name: 'reindex with ids of the wrong type', method: 'POST', path: '/api/v1/docs/data-sources/reindex/', body: { ids: ['one'] }, expected: { msg: 'Invalid request parameters: ids[0] must be a number' } },
      { name: 'reindex of an unknown id', method: 'POST', path: '/api/v1/docs/data-sources/reindex/', body: { ids: [424242] }, expected: { msg: 'Invalid request parameters' } },
      { name: 'sessions with page 0', method: 'POST', path: '/api/v1/docs/sessions/', body: { page_num: 0 }, expected: { msg: 'Page number must be an integer' } },
      { name: 'sessions with a fractional page', method: 'POST', path: '/api/v1/docs/sessions/', body: { page_num: 1.5 }, expected: { msg: 'Page number must be an integer' } },
      { name: 'sessions with a text page', method: 'POST', path: '/api/v1/docs/sessions/', body: { page_num: 'two' }, expected: { msg: 'Page number must be an integer' } },
      { name: 'sessions with a search over 500 characters', method: 'POST', path: '/api/v1/docs/sessions/', body: { search_query: 's'.repeat(501) }, expected: { msg: 'search_query must be at most 500 characters' } },
      { name: 'sessions with a numeric external_user_id', method: 'POST', path: '/api/v1/docs/sessions/', body: { external_user_id: 7 }, expected: { msg: 'external_user_id must be a string' } },
      { name: 'session read without an id', method: 'POST', path: '/api/v1/sessions//conversation/', body: undefined, expected: { msg: 'Binge ID is required' } },
      { name: 'session delete without an id', method: 'DELETE', path: '/api/v1/sessions//delete/', body: undefined, expected: { msg: 'Binge ID is required' } },
      { name: 'session read with an id over 256 characters', method: 'POST', path: `/api/v1/sessions/${'s'.repeat(257)}/conversation/`, body: undefined, expected: { msg: 'The session id must be at most 256 characters' } },
    ] as const)('$name -> 400 $expected', async ({ method, path, body, expected }) => {
      const reply = await call(base, method, path, { key: docsKey, body });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual(expected);
    });

    it.each([
      { path: '/api/v1/docs/answer/', expected: { msg: 'Invalid JSON body' } },
      { path: '/api/v1/docs/semantic-search/', expected: { error: 'Invalid JSON body' } },
      // Where the spec's message is generic, the problem follows it.
      { path: '/api/v1/docs/data-sources/', expected: { msg: 'Invalid request parameters: Invalid JSON body' } },
      { path: '/api/v1/docs/sessions/', expected: { msg: 'Invalid JSON body' } },
    ])('malformed JSON to $path -> 400 $expected', async ({ path, expected }) => {
      const reply = await call(base, 'POST', path, { key: docsKey, rawBody: '{"question": ', headers: { 'content-type': 'application/json' } });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual(expected);
    });

    it.each([
      ['page=0', 'page must be at least 1'],
      ['page=x', 'page must be a number'],
      ['page_size=0', 'page_size must be at least 1'],
      ['page_size=1001', 'page_size must be at most 1000'],
    ])('data-source listing with %s -> 400', async (query, problem) => {
      const reply = await call(base, 'GET', `/api/v1/docs/data-sources/?${query}`, { key: docsKey });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ msg: `Invalid request parameters: ${problem}` });
    });

    it('refuses a body over its route’s cap with 413, declared or streamed', async () => {
      const overRequestCap = JSON.stringify({ question: 'x'.repeat(256 * 1024) });
      const declared = await call(base, 'POST', '/api/v1/docs/semantic-search/', { key: docsKey, rawBody: overRequestCap });
      expect(declared.status).toBe(413);
      expect(declared.json).toEqual({ error: 'Request body too large (limit 256 KiB)' });

      const chunks = Array.from({ length: 17 }, () => Buffer.alloc(1024 * 1024, 'y'));
      const streamed = await call(base, 'POST', '/api/v1/docs/data-sources/', { key: docsKey, rawBody: Readable.from(chunks) });
      expect(streamed.status).toBe(413);
      expect(streamed.json).toEqual({ msg: 'Request body too large (limit 16 MiB)' });
    });

    it('reads a text source over its 5,000,000-character cap whole (the body cap fits it) and refuses it', async () => {
      const content = 'word '.repeat(1_000_000);
      const reply = await call(base, 'POST', '/api/v1/docs/data-sources/', { key: docsKey, body: { text_sources: [{ name: 'Over', content: `${content}!` }] } });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ msg: 'Invalid request parameters: text_sources[0].content must be at most 5000000 characters' });
    });

    it("takes an ask body with attachments over 256 KiB, and refuses one over the cap the guru's attachment limits allow", async () => {
      const withLog = await call(base, 'POST', '/api/v1/docs/answer/', {
        key: docsKey,
        body: { question: 'How do I install the widget?', log_files: [{ name: 'big.log', data: 'z'.repeat(300 * 1024) }] },
      });
      expect(withLog.status).toBe(200);
      expect(withLog.json).not.toHaveProperty('attachment_note');

      // 5 images of 5 MB and 3 PDFs of 10 MB as base64, 5 logs of 1 MB with JSON escapes: 80 MiB.
      const chunks = Array.from({ length: 81 }, () => Buffer.alloc(1024 * 1024, 'y'));
      const reply = await call(base, 'POST', '/api/v1/docs/answer/', { key: docsKey, rawBody: Readable.from(chunks) });
      expect(reply.status).toBe(413);
      expect(reply.headers.connection).toBe('close');
      expect(reply.json).toEqual({ msg: 'Request body too large (limit 80 MiB)' });
    });

    it("sizes the cap from the guru's own attachment limits", async () => {
      await backend.admin!.updateGuruSettings('other', {
        attachment_limits: { images: { count: 0 }, pdf_files: { count: 1, max_bytes: 1_000_000 }, log_files: { count: 1, max_bytes: 100_000 } },
      });
      // 256 KiB for the question, a PDF of 1 MB as base64 (1.33 MB) and a log of 100 KB with escapes: 2 MiB.
      const reply = await call(base, 'POST', '/api/v1/other/answer/', { key: otherKey, rawBody: Readable.from(Array.from({ length: 3 }, () => Buffer.alloc(1024 * 1024, 'y'))) });
      expect(reply.status).toBe(413);
      expect(reply.json).toEqual({ msg: 'Request body too large (limit 2 MiB)' });
    });

    it('streams the note about skipped attachments first, as a quoted line, and says it in the JSON', async () => {
      const body = { question: 'How do I install the widget?', log_files: [{ name: 'huge.log', data: 'z'.repeat(1_000_001) }] };
      const streamed = await call(base, 'POST', '/api/v1/docs/answer/', { key: docsKey, body: { ...body, stream: true } });
      expect(streamed.status).toBe(200);
      const note = 'Skipped 1 log file (this guru takes at most 5 log files of up to 1 MB each).';
      expect(streamed.text.startsWith(`> ${note}\n\n`)).toBe(true);
      const json = await call(base, 'POST', '/api/v1/docs/answer/', { key: docsKey, body });
      expect(json.json).toMatchObject({ attachment_note: note });
    });

    it('refuses PDFs over the limits with 400 before answering, storing no question', async () => {
      const before = storedRows(dataDir, 'questions');
      const pdf = { name: 'a.pdf', type: 'application/pdf', data: `data:application/pdf;base64,${Buffer.from('%PDF-1.4').toString('base64')}` };
      const reply = await call(base, 'POST', '/api/v1/docs/answer/', { key: docsKey, body: { question: 'q', pdf_files: [pdf, pdf, pdf, pdf] } });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ msg: 'Too many PDF files: 4 attached, this guru takes at most 3 PDF files per question. No answer was generated.' });
      expect(storedRows(dataDir, 'questions')).toBe(before);
    });

    it('refuses a malformed data URL with 400 naming the file', async () => {
      const reply = await call(base, 'POST', '/api/v1/docs/answer/', {
        key: docsKey,
        body: { question: 'q', images: [{ name: 'shot.png', type: 'image/png', data: 'data:image/png;base64,not base64!' }] },
      });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({
        msg: 'images[0] (shot.png) does not hold valid base64 data (only A-Z, a-z, 0-9, + and /, padded with = to a multiple of 4 characters)',
      });
    });
  });

  describe('oversized requests', () => {
    // 3.9 MB, as in the attack that grew the database by 115 MB in 20 s.
    const huge = 'x'.repeat(3_900_000);

    it('refuses a 3.9 MB question while reading it, storing no search', async () => {
      const before = storedRows(dataDir, 'searches');
      const reply = await call(base, 'POST', '/api/v1/docs/semantic-search/', { key: docsKey, body: { question: huge } });
      expect(reply.status).toBe(413);
      expect(reply.json).toEqual({ error: 'Request body too large (limit 256 KiB)' });
      expect(storedRows(dataDir, 'searches')).toBe(before);
    });

    it('refuses a question over 10,000 characters that fits the body cap, storing no search', async () => {
      const before = storedRows(dataDir, 'searches');
      const reply = await call(base, 'POST', '/api/v1/docs/semantic-search/', { key: docsKey, body: { question: 'word '.repeat(2001) } });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ error: 'question must be at most 10000 characters' });
      expect(storedRows(dataDir, 'searches')).toBe(before);
      const atCap = await call(base, 'POST', '/api/v1/docs/semantic-search/', { key: docsKey, body: { question: 'word '.repeat(2000) } });
      expect(atCap.status).toBe(200);
      // A search is logged right after it is answered (src/engine/search/search-log.ts), not before the answer goes out.
      await expect.poll(() => storedRows(dataDir, 'searches'), { timeout: 30_000 }).toBe(before + 1);
    });

    it('refuses an oversized question to ask, storing no question', async () => {
      const before = storedRows(dataDir, 'questions');
      // Ask's body cap makes room for attachments: a 3.9 MB question is read, and refused by its own cap.
      const read = await call(base, 'POST', '/api/v1/docs/answer/', { key: docsKey, body: { question: huge } });
      expect(read.status).toBe(400);
      expect(read.json).toEqual({ msg: 'question must be at most 10000 characters' });
      expect((await call(base, 'POST', '/api/v1/docs/answer/', { key: docsKey, body: { question: 'q'.repeat(10_001) } })).status).toBe(400);
      expect(storedRows(dataDir, 'questions')).toBe(before);
    });

    it('refuses a 3.9 MB or a 4097-character crawl URL, starting no crawl', async () => {
      const before = storedRows(dataDir, 'crawls');
      const tooLarge = await call(base, 'POST', '/api/v1/docs/crawl/start/', { key: docsKey, body: { url: `https://example.com/${huge}` } });
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.json).toEqual({ msg: 'Request body too large (limit 256 KiB)' });
      const tooLong = await call(base, 'POST', '/api/v1/docs/crawl/start/', { key: docsKey, body: { url: `https://example.com/${'a'.repeat(4077)}` } });
      expect(tooLong.status).toBe(400);
      expect(tooLong.json).toEqual({ msg: 'url must be at most 4096 characters' });
      expect(storedRows(dataDir, 'crawls')).toBe(before);
    });

    it('refuses a 3.9 MB source URL, adding no source', async () => {
      const before = storedRows(dataDir, 'data_sources');
      const reply = await call(base, 'POST', '/api/v1/docs/data-sources/', { key: docsKey, body: { website_urls: [`https://example.com/${huge}`] } });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ msg: 'Invalid request parameters: website_urls[0] must be at most 4096 characters' });
      expect(storedRows(dataDir, 'data_sources')).toBe(before);
    });
  });

  describe('data-source paging', () => {
    it('links next and previous pages relative to the server, newest first, whatever the Host', async () => {
      const key = (await backend.admin!.createGuru({ slug: 'paging' })).api_key;
      for (const name of ['first', 'second', 'third']) {
        const created = await call(base, 'POST', '/api/v1/paging/data-sources/', { key, body: { text_sources: [{ name, content: `The ${name} text.` }] } });
        expect(created.status).toBe(200);
      }
      await whenIdle(backend);

      const first = await call(base, 'GET', '/api/v1/paging/data-sources/?page_size=2', { key });
      expect(first.status).toBe(200);
      const page1 = first.json as { count: number; next: string | null; previous: string | null; results: { id: number }[] };
      expect(page1.count).toBe(3);
      expect(page1.results).toHaveLength(2);
      expect(page1.previous).toBeNull();
      expect(page1.next).toBe('/api/v1/paging/data-sources/?page_size=2&page=2');

      const second = await call(base, 'GET', page1.next!, { key });
      const page2 = second.json as typeof page1;
      expect(page2.results).toHaveLength(1);
      expect(page2.next).toBeNull();
      expect(page2.previous).toBe('/api/v1/paging/data-sources/?page_size=2&page=1');

      const ids = [...page1.results, ...page2.results].map((source) => source.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));

      const viaLocalhost = await call(base, 'GET', '/api/v1/paging/data-sources/?page=1&page_size=1', { key, headers: { host: 'localhost:4242' } });
      expect((viaLocalhost.json as typeof page1).next).toBe('/api/v1/paging/data-sources/?page=2&page_size=1');
    });
  });

  describe('logging', () => {
    it('logs one debug line per request without keys or bodies', async () => {
      logLines.length = 0;
      await call(base, 'POST', '/api/v1/docs/semantic-search/', { key: docsKey, body: { question: 'secret question text' } });
      await call(base, 'GET', '/api/v1/docs/data-sources/', { key: 'wrong-key-value' });
      const requestLines = logLines.filter((line) => line.includes('http request'));
      expect(requestLines).toHaveLength(2);
      expect(requestLines[0]).toMatch(/debug http request method="POST" path="\/api\/v1\/docs\/semantic-search\/" status=200 ms=\d+/);
      expect(requestLines[1]).toContain('status=401');
      const all = logLines.join('');
      expect(all).not.toContain(docsKey);
      expect(all).not.toContain('wrong-key-value');
      expect(all).not.toContain('secret question text');
    });
  });
});

describe('REST rate limit', () => {
  let dataDir: string;
  let backend: OpenedBackend;
  let limiter: OpenedRateLimiter;
  let server: RunningHttpServer;
  /** A key of its own for each test, so that each starts with full buckets. */
  let key: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-rest-limit-'));
    const config = Config.parse({ dataDir, rateLimitPerMinute: 2 });
    backend = await openBackend(config, silentLogger);
    limiter = await openRateLimiter(config, silentLogger);
    await backend.admin!.createGuru({ slug: 'limited' });
    server = await startHttpServer({ backend, logger: silentLogger, host: '127.0.0.1', port: 0, limiter });
  });

  beforeEach(async () => {
    key = (await backend.admin!.createApiKey('limited')).api_key;
  });

  afterAll(async () => {
    await server?.close();
    await limiter?.close();
    await backend?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const search = (user?: string) =>
    call(server.url, 'POST', '/api/v1/limited/semantic-search/', {
      key,
      body: { question: 'anything', ...(user === undefined ? {} : { external_user_id: user }) },
    });

  it('answers 429 with Retry-After once a key has used its requests', async () => {
    const path = '/api/v1/limited/data-sources/';
    expect((await call(server.url, 'GET', path, { key })).status).toBe(200);
    expect((await call(server.url, 'GET', path, { key })).status).toBe(200);
    const throttled = await call(server.url, 'GET', path, { key });
    expect(throttled.status).toBe(429);
    const seconds = Number(throttled.headers['retry-after']);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(throttled.json).toEqual({ msg: `Request was throttled. Expected available in ${seconds} seconds.` });

    const searched = await search();
    expect(searched.status).toBe(429);
    expect(searched.json).toEqual({ error: 'Rate limit exceeded' });
  });

  it('counts each end user separately where the operation names one', async () => {
    expect((await search('alice')).status).toBe(200);
    expect((await search('alice')).status).toBe(200);
    expect((await search('alice')).status).toBe(429);
    expect((await search('bob')).status).toBe(200);

    const listed = await call(server.url, 'POST', '/api/v1/limited/sessions/', { key, body: { external_user_id: 'carol' } });
    expect(listed.status).toBe(200);
    const asked = await call(server.url, 'POST', '/api/v1/limited/answer/', { key, body: { question: 'anything', external_user_id: 'carol' } });
    expect(asked.status).toBe(200);
    expect((await call(server.url, 'POST', '/api/v1/limited/answer/', { key, body: { question: 'again', external_user_id: 'carol' } })).status).toBe(429);
  });

  it('reads external_user_id only where the operation defines it', async () => {
    const list = (user: string) => call(server.url, 'GET', `/api/v1/limited/data-sources/?external_user_id=${user}`, { key });
    expect((await list('u1')).status).toBe(200);
    expect((await list('u2')).status).toBe(200);
    expect((await list('u3')).status).toBe(429);

    const added = await call(server.url, 'POST', '/api/v1/limited/data-sources/', {
      key,
      body: { text_sources: [{ name: 'n', content: 'c' }], external_user_id: 'u4' },
    });
    expect(added.status).toBe(429);
    const read = await call(server.url, 'POST', '/api/v1/sessions/some-session/conversation/?external_user_id=u5', { key, body: { external_user_id: 'u6' } });
    expect(read.status).toBe(429);
  });

  it('caps a key at ten times the limit, however many end users it names', async () => {
    for (let i = 0; i < 20; i++) expect((await search(`invented-${i}`)).status, `end user ${i}`).toBe(200);
    const throttled = await search('one-more');
    expect(throttled.status).toBe(429);
    expect(throttled.json).toEqual({ error: 'Rate limit exceeded' });
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('checks the key before counting', async () => {
    for (let i = 0; i < 4; i++) {
      const reply = await call(server.url, 'GET', '/api/v1/limited/data-sources/', { key: 'bad' });
      expect(reply.status).toBe(401);
    }
    expect((await call(server.url, 'GET', '/api/v1/limited/data-sources/', { key })).status).toBe(200);
  });
});
