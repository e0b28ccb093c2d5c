/**
 * The crawl endpoints over real HTTP: start, status and stop of crawls of a
 * loopback site, with the spec's bodies, messages and fields. What a crawl
 * discovers in detail is the crawler's business (test/engine/crawl/).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openBackend, openRateLimiter, type OpenedBackend } from '../../src/compose.js';
import { Config } from '../../src/config.js';
import { Crawl } from '../../src/core/schemas.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { silentLogger } from '../../src/log.js';
import { respond, startLoopbackServer, type LoopbackServer, type Route } from '../support/loopback-server.js';
import { call, type Reply } from './support.js';

/** An HTML page linking to `links`. */
const page = (title: string, links: readonly string[] = []) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1>${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</body></html>`;

describe('REST crawl endpoints', () => {
  let dataDir: string;
  let backend: OpenedBackend;
  let server: RunningHttpServer;
  let site: LoopbackServer;
  /** Responses of /held/ kept open, so that a crawl of it stays RUNNING until stopped. */
  const held: ServerResponse[] = [];
  let guru: string;
  let key: string;
  let gurus = 0;

  const crawlPath = (...parts: string[]) => `/api/v1/${[guru, 'crawl', ...parts].join('/')}/`;
  const start = (body: unknown, options: { key?: string } = {}) => call(server.url, 'POST', crawlPath('start'), { key: options.key ?? key, body });
  const status = (id: number | string, options: { key?: string } = {}) => call(server.url, 'GET', crawlPath(String(id), 'status'), { key: options.key ?? key });
  const stop = (id: number | string, options: { key?: string } = {}) => call(server.url, 'POST', crawlPath(String(id), 'stop'), { key: options.key ?? key });

  /** Reads the crawl's status until it is no longer RUNNING. */
  async function ended(id: number): Promise<Crawl> {
    for (;;) {
      const reply = await status(id);
      expect(reply.status).toBe(200);
      const crawl = Crawl.parse(reply.json);
      if (crawl.status !== 'RUNNING') return crawl;
      await sleep(25);
    }
  }

  const pathsOf = (crawl: Crawl) => crawl.discovered_urls.map((url) => url.slice(site.origin.length)).sort();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-rest-crawl-'));
    // The site is served on 127.0.0.1.
    const config = Config.parse({ dataDir, allowPrivateNetwork: true, rateLimitPerMinute: 0 });
    backend = await openBackend(config, silentLogger);
    server = await startHttpServer({ backend, logger: silentLogger, host: '127.0.0.1', port: 0, limiter: await openRateLimiter(config, silentLogger) });
    const list: Route = (request, response) => {
      const number = Number(new URL(request.url ?? '/', site.origin).searchParams.get('page') ?? '1');
      respond(page(`List ${number}`, number < 2 ? ['/docs/list?page=2'] : []))(request, response);
    };
    site = await startLoopbackServer({
      '/docs/': respond(page('Docs', ['install', 'guide/', '/docs/list?page=1', '/blog/news', '/docs/logo.png', '/docs/static/app.css', 'install#setup'])),
      '/docs/install': respond(page('Install', ['/docs/'])),
      '/docs/guide/': respond(page('Guide', ['../install', 'https://example.com/elsewhere'])),
      '/docs/list': list,
      '/blog/news': respond(page('News')),
      '/held/': (_request, response) => {
        held.push(response);
      },
    });
  });

  beforeEach(async () => {
    gurus += 1;
    guru = `crawler-${gurus}`;
    key = (await backend.admin!.createGuru({ slug: guru })).api_key;
  });

  afterEach(() => {
    for (const response of held.splice(0)) response.destroy();
  });

  afterAll(async () => {
    await site?.close();
    await server?.close();
    await backend?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  function expectError(reply: Reply, status: number, body: Record<string, string>) {
    expect(reply.status).toBe(status);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.json).toEqual(body);
  }

  describe('POST {guru}/crawl/start/', () => {
    it('answers the crawl RUNNING with no URLs yet; its status ends COMPLETED with the pages under the start URL', async () => {
      const started = await start({ url: site.url('/docs/') });
      expect(started.status).toBe(200);
      expect(started.json).toEqual({
        id: expect.any(Number),
        url: site.url('/docs/'),
        status: 'RUNNING',
        guru_type: guru,
        discovered_urls: [],
        start_time: expect.any(String),
        end_time: null,
        link_limit: 1500,
        ignore_query_params: true,
      });
      const crawl = await ended((started.json as Crawl).id);
      expect(crawl).toMatchObject({ id: (started.json as Crawl).id, status: 'COMPLETED', end_time: expect.any(String), ignore_query_params: true });
      expect(crawl).not.toHaveProperty('error_message');
      expect(pathsOf(crawl)).toEqual(['/docs/', '/docs/guide/', '/docs/install', '/docs/list']);
    });

    it('keeps query strings with ignore_query_params false', async () => {
      const started = await start({ url: site.url('/docs/'), ignore_query_params: false });
      expect(started.status).toBe(200);
      expect(started.json).toMatchObject({ status: 'RUNNING', ignore_query_params: false });
      const crawl = await ended((started.json as Crawl).id);
      expect(pathsOf(crawl)).toEqual(['/docs/', '/docs/guide/', '/docs/install', '/docs/list?page=1', '/docs/list?page=2']);
    });

    it('refuses a second crawl while one runs, with DESIGN.md’s message, and allows one again once it is stopped', async () => {
      const first = await start({ url: site.url('/held/') });
      expect(first.status).toBe(200);
      expectError(await start({ url: site.url('/docs/') }), 400, {
        msg: 'A crawl is already running for this guru. Please wait for it to complete or stop it.',
      });
      expect((await stop((first.json as Crawl).id)).status).toBe(200);
      const second = await start({ url: site.url('/docs/') });
      expect(second.status).toBe(200);
      expect((await ended((second.json as Crawl).id)).status).toBe('COMPLETED');
    });

    it.each([
      { name: 'an empty body', body: {} },
      { name: 'a URL that is not text', body: { url: 42 } },
      { name: 'a URL that is not absolute', body: { url: '/docs/' } },
      { name: 'a URL of another scheme', body: { url: 'ftp://example.com/docs/' } },
      { name: 'text that is no URL', body: { url: 'not a url' } },
      { name: 'a blank URL', body: { url: '   ' } },
    ])('answers 400 "Invalid URL format" for $name', async ({ body }) => {
      expectError(await start(body), 400, { msg: 'Invalid URL format' });
    });

    // "Invalid URL format" is the spec's message for a bad URL; other problems are named as what they are.
    it.each([
      {
        name: 'ignore_query_params that is not a boolean',
        body: { url: 'https://example.com/', ignore_query_params: 'no' },
        message: 'ignore_query_params must be true or false',
      },
      { name: 'a JSON array', body: [{ url: 'https://example.com/' }], message: 'The request must be a JSON object' },
      { name: 'a URL over 4096 characters', body: { url: `https://example.com/${'a'.repeat(4096)}` }, message: 'url must be at most 4096 characters' },
    ])('answers 400 naming the problem for $name', async ({ body, message }) => {
      expectError(await start(body), 400, { msg: message });
    });

    it('answers 400 "Invalid JSON body" for a body that is not JSON, and starts nothing', async () => {
      const reply = await call(server.url, 'POST', crawlPath('start'), { key, rawBody: '{"url": ', headers: { 'content-type': 'application/json' } });
      expectError(reply, 400, { msg: 'Invalid JSON body' });
      // Nothing runs: a crawl can start.
      const started = await start({ url: site.url('/docs/install') });
      expect(started.status).toBe(200);
      await ended((started.json as Crawl).id);
    });
  });

  describe('GET {guru}/crawl/{crawl_id}/status/', () => {
    it('answers the crawl as it stands, RUNNING while pages are still being fetched', async () => {
      const started = (await start({ url: site.url('/held/') })).json as Crawl;
      const reply = await status(started.id);
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual(started);
      await stop(started.id);
    });

    it.each(['abc', '1.5', '-1', '1e3', '0x1', '%20', '12345678901234567'])('answers 400 "Invalid request" for the crawl id %j', async (id) => {
      expectError(await status(id), 400, { msg: 'Invalid request' });
    });

    it('answers 400 "Invalid request" for an empty crawl id', async () => {
      expectError(await call(server.url, 'GET', `/api/v1/${guru}/crawl//status/`, { key }), 400, { msg: 'Invalid request' });
    });

    it('answers 404 "Crawl not found" for an unknown id and for the crawl of another guru', async () => {
      expectError(await status(0), 404, { msg: 'Crawl not found' });
      expectError(await status(987654), 404, { msg: 'Crawl not found' });
      const mine = (await start({ url: site.url('/docs/install') })).json as Crawl;
      await ended(mine.id);
      const otherKey = (await backend.admin!.createGuru({ slug: `${guru}-other` })).api_key;
      const theirs = await call(server.url, 'GET', `/api/v1/${guru}-other/crawl/${mine.id}/status/`, { key: otherKey });
      expectError(theirs, 404, { msg: 'Crawl not found' });
    });
  });

  describe('POST {guru}/crawl/{crawl_id}/stop/', () => {
    it('answers 200 with the crawl STOPPED, its end time set; stopping again answers the same crawl', async () => {
      const started = (await start({ url: site.url('/held/') })).json as Crawl;
      const stopped = await stop(started.id);
      expect(stopped.status).toBe(200);
      const crawl = Crawl.parse(stopped.json);
      expect(crawl).toMatchObject({ id: started.id, status: 'STOPPED', url: site.url('/held/'), start_time: started.start_time });
      expect(crawl.end_time).toEqual(expect.any(String));
      expect((await status(started.id)).json).toEqual(stopped.json);
      const again = await stop(started.id);
      expect(again.status).toBe(200);
      expect(again.json).toEqual(stopped.json);
    });

    it('answers a completed crawl as it is', async () => {
      const started = (await start({ url: site.url('/docs/install') })).json as Crawl;
      const done = await ended(started.id);
      const stopped = await stop(started.id);
      expect(stopped.status).toBe(200);
      expect(stopped.json).toEqual(done);
    });

    it.each(['abc', '2.0', '-3'])('answers 400 "Invalid request" for the crawl id %j', async (id) => {
      expectError(await stop(id), 400, { msg: 'Invalid request' });
    });

    it('answers 404 "Crawl not found" for an unknown id', async () => {
      expectError(await stop(424242), 404, { msg: 'Crawl not found' });
    });
  });

  describe('keys', () => {
    it('refuses the key of another guru on every crawl endpoint, leaving the crawl running', async () => {
      const started = (await start({ url: site.url('/held/') })).json as Crawl;
      const otherKey = (await backend.admin!.createGuru({ slug: `${guru}-stranger` })).api_key;
      for (const reply of [
        await start({ url: site.url('/docs/') }, { key: otherKey }),
        await status(started.id, { key: otherKey }),
        await stop(started.id, { key: otherKey }),
      ]) {
        expectError(reply, 401, { msg: 'Invalid API key' });
      }
      expect((await status(started.id)).json).toMatchObject({ status: 'RUNNING' });
      await stop(started.id);
    });
  });
});
