/**
 * The remote adapter's crawl and video-list calls against loopback servers that
 * misbehave on purpose: which calls are sent again after a failure, what they
 * send, which key they carry, and what a response that does not fit becomes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GuruError } from '../../src/core/errors.js';
import { waitForCrawl } from '../../src/core/wait-for-crawl.js';
import { createLogger } from '../../src/log.js';
import { RemoteAssistant, type RemoteAssistantOptions } from '../../src/remote/remote-assistant.js';
import { json, startLoopbackService, type LoopbackService, type Responder } from './loopback-service.js';

const KEY = 'guru_crawl-key-that-must-never-be-logged';

const RUNNING = {
  id: 7,
  url: 'https://docs.example.com/guide/',
  status: 'RUNNING',
  guru_type: 'frob',
  discovered_urls: [],
  start_time: '2026-11-20T12:00:00.000Z',
  end_time: null,
  link_limit: 1500,
  ignore_query_params: true,
};
const DISCOVERED = ['https://docs.example.com/guide/', 'https://docs.example.com/guide/install'];
const COMPLETED = { ...RUNNING, status: 'COMPLETED', discovered_urls: DISCOVERED, end_time: '2026-11-20T12:00:09.000Z' };
const STOPPED = { ...RUNNING, status: 'STOPPED', discovered_urls: DISCOVERED.slice(0, 1), end_time: '2026-11-20T12:00:03.000Z' };

const CHANNEL = {
  channel_identifier: 'Frobnicator',
  identifier_type: 'username',
  video_count: 2,
  videos: ['https://www.youtube.com/watch?v=frob0000001', 'https://www.youtube.com/watch?v=frob0000002'],
};
const PLAYLIST = { playlist_id: 'PLfrob', video_count: 1, videos: ['https://www.youtube.com/watch?v=tut00000001'] };

const CHANNEL_URL = 'https://www.youtube.com/@Frobnicator';
const PLAYLIST_URL = 'https://www.youtube.com/playlist?list=PLfrob';

/** Closes the connection without an answer, as a proxy that dropped it would. */
const hangUp: Responder = (_request, res) => {
  res.socket?.destroy();
};

describe('RemoteAssistant: crawls and video lists', () => {
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

  const sent = (service: LoopbackService) => service.requests.map((request) => `${request.method} ${request.url}`);

  describe('what each call sends', () => {
    it('calls the spec’s paths with the spec’s bodies', async () => {
      const { service, assistant } = await connect((request, res) => {
        if (request.url.endsWith('/start/')) return json(res, 200, RUNNING);
        if (request.url.endsWith('/status/')) return json(res, 200, COMPLETED);
        if (request.url.endsWith('/stop/')) return json(res, 200, STOPPED);
        if (request.url.endsWith('/channel/')) return json(res, 200, CHANNEL);
        return json(res, 200, PLAYLIST);
      });
      await expect(assistant.startCrawl('frob', { url: RUNNING.url, ignore_query_params: false })).resolves.toEqual(RUNNING);
      await expect(assistant.crawlStatus('frob', 7)).resolves.toEqual(COMPLETED);
      await expect(assistant.stopCrawl('frob', 7)).resolves.toEqual(STOPPED);
      await expect(assistant.importChannel({ url: CHANNEL_URL })).resolves.toEqual(CHANNEL);
      await expect(assistant.importPlaylist({ url: PLAYLIST_URL })).resolves.toEqual(PLAYLIST);
      expect(sent(service)).toEqual([
        'POST /api/v1/frob/crawl/start/',
        'GET /api/v1/frob/crawl/7/status/',
        'POST /api/v1/frob/crawl/7/stop/',
        'POST /api/v1/youtube/channel/',
        'POST /api/v1/youtube/playlist/',
      ]);
      expect(service.requests.map((request) => request.body)).toEqual([
        { url: RUNNING.url, ignore_query_params: false },
        undefined,
        undefined,
        { url: CHANNEL_URL },
        { url: PLAYLIST_URL },
      ]);
    });

    it('follows a crawl with waitForCrawl until the service says it ended', async () => {
      const { service, assistant } = await connect((_request, res, index) => json(res, 200, index < 2 ? RUNNING : COMPLETED));
      const counts: number[] = [];
      const crawl = await waitForCrawl(assistant, 'frob', 7, { intervalMs: 1, onProgress: (found) => counts.push(found) });
      expect(crawl).toEqual(COMPLETED);
      expect(counts).toEqual([0, 0, 2]);
      expect(service.requests).toHaveLength(3);
    });

    it('keeps the failure text of a failed crawl', async () => {
      const failed = { ...COMPLETED, status: 'FAILED', error_message: 'Interrupted: the server stopped during the crawl; start it again.' };
      const { assistant } = await connect((_request, res) => json(res, 200, failed));
      await expect(assistant.crawlStatus('frob', 7)).resolves.toEqual(failed);
    });
  });

  describe('sending again', () => {
    it('never starts a crawl twice: not after a 5xx, nor after a dropped connection', async () => {
      const { service, assistant } = await connect((request, res, index) =>
        index === 0 ? json(res, 503, { msg: 'Service busy' }) : hangUp(request, res, index),
      );
      const start = () => assistant.startCrawl('frob', { url: RUNNING.url, ignore_query_params: true });
      await expect(start()).rejects.toMatchObject({ status: 503, message: 'Service busy' });
      await expect(start()).rejects.toMatchObject({ status: 502 });
      expect(sent(service)).toEqual(['POST /api/v1/frob/crawl/start/', 'POST /api/v1/frob/crawl/start/']);
    });

    it('reads a crawl’s status again after a 5xx and after a dropped connection', async () => {
      const { service, assistant } = await connect((request, res, index) => {
        if (index === 0) return json(res, 502, { msg: 'Bad gateway' });
        if (index === 1) return hangUp(request, res, index);
        json(res, 200, COMPLETED);
      });
      await expect(assistant.crawlStatus('frob', 7)).resolves.toEqual(COMPLETED);
      expect(sent(service)).toEqual(Array(3).fill('GET /api/v1/frob/crawl/7/status/'));
      expect(logLines.filter((line) => line.includes('guru service call failed; retrying'))).toHaveLength(2);
    });

    it('stops a crawl again after a 5xx: stopping a stopped crawl answers the same crawl', async () => {
      const { service, assistant } = await connect((_request, res, index) =>
        index === 0 ? json(res, 503, { msg: 'Service busy' }) : json(res, 200, STOPPED),
      );
      await expect(assistant.stopCrawl('frob', 7)).resolves.toEqual(STOPPED);
      expect(sent(service)).toEqual(Array(2).fill('POST /api/v1/frob/crawl/7/stop/'));
    });

    it('imports a channel or playlist again after a 5xx: an import only reads', async () => {
      const { service, assistant } = await connect((request, res, index) => {
        if (index % 2 === 0) return json(res, 502, { msg: 'The YouTube Data API is unavailable (HTTP 503); try again later' });
        json(res, 200, request.url.endsWith('/channel/') ? CHANNEL : PLAYLIST);
      });
      await expect(assistant.importChannel({ url: CHANNEL_URL })).resolves.toEqual(CHANNEL);
      await expect(assistant.importPlaylist({ url: PLAYLIST_URL })).resolves.toEqual(PLAYLIST);
      expect(sent(service)).toEqual([
        'POST /api/v1/youtube/channel/',
        'POST /api/v1/youtube/channel/',
        'POST /api/v1/youtube/playlist/',
        'POST /api/v1/youtube/playlist/',
      ]);
    });

    it('gives up on status after its retries, with the service’s last answer', async () => {
      const { service, assistant } = await connect((_request, res) => json(res, 500, { msg: 'Internal server error' }), {
        retry: { retries: 2, backoffMs: 1 },
      });
      await expect(assistant.crawlStatus('frob', 7)).rejects.toMatchObject({ status: 500, message: 'Internal server error' });
      expect(service.requests).toHaveLength(3);
    });

    it('passes 4xx answers on at once: "Crawl not found", "Invalid URL format", "URL is required"', async () => {
      const { service, assistant } = await connect((request, res) => {
        if (request.url.includes('/crawl/7/')) return json(res, 404, { msg: 'Crawl not found' });
        if (request.url.endsWith('/start/')) return json(res, 400, { msg: 'Invalid URL format' });
        json(res, 400, { msg: 'URL is required' });
      });
      await expect(assistant.crawlStatus('frob', 7)).rejects.toMatchObject({ status: 404, field: 'msg', message: 'Crawl not found' });
      await expect(assistant.stopCrawl('frob', 7)).rejects.toMatchObject({ status: 404, field: 'msg', message: 'Crawl not found' });
      await expect(assistant.startCrawl('frob', { url: 'nope', ignore_query_params: true })).rejects.toMatchObject({
        status: 400,
        message: 'Invalid URL format',
      });
      await expect(assistant.importChannel({ url: 'nope' })).rejects.toMatchObject({ status: 400, message: 'URL is required' });
      await expect(assistant.importPlaylist({ url: 'nope' })).rejects.toMatchObject({ status: 400, message: 'URL is required' });
      expect(service.requests).toHaveLength(5);
    });

    it('waits out "Request was throttled." by its Retry-After header, then imports', async () => {
      const { service, assistant } = await connect((_request, res, index) =>
        index === 0 ? json(res, 429, { msg: 'Request was throttled.' }, { 'retry-after': '1' }) : json(res, 200, PLAYLIST),
      );
      await expect(assistant.importPlaylist({ url: PLAYLIST_URL })).resolves.toEqual(PLAYLIST);
      expect(service.requests).toHaveLength(2);
      const waits = logLines.filter((line) => line.includes('rate limited by the guru service; retrying'));
      expect(waits).toHaveLength(1);
      expect(waits[0]).toContain('endpoint="POST /api/v1/youtube/playlist/"');
    });
  });

  describe('responses', () => {
    it('names the endpoint and the field of a crawl that does not fit the API', async () => {
      const { assistant } = await connect((_request, res) => json(res, 200, { ...COMPLETED, status: 'DONE' }));
      const error = await assistant.crawlStatus('frob', 7).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(GuruError);
      expect((error as GuruError).status).toBe(502);
      expect((error as GuruError).message).toMatch(
        /^The guru service answered GET \/api\/v1\/frob\/crawl\/7\/status\/ with a response that does not fit the API: status: /,
      );
    });

    it('refuses a channel import whose identifier type is not the spec’s', async () => {
      const { assistant } = await connect((_request, res) => json(res, 200, { ...CHANNEL, identifier_type: 'handle' }));
      await expect(assistant.importChannel({ url: CHANNEL_URL })).rejects.toMatchObject({
        status: 502,
        message: expect.stringContaining('POST /api/v1/youtube/channel/ with a response that does not fit the API: identifier_type: '),
      });
    });
  });

  describe('the API key', () => {
    it('goes with every call, imports included, and never into the logs or errors', async () => {
      const { service, assistant } = await connect((request, res, index) => {
        if (index === 0) return json(res, 503, { msg: 'Service busy' }); // the status read is retried
        if (request.url.includes('/crawl/')) return json(res, 200, COMPLETED);
        return json(res, 401, { msg: 'Invalid API key' });
      });
      await assistant.crawlStatus('frob', 7);
      const errors = [
        await assistant.importChannel({ url: CHANNEL_URL }).catch((error: unknown) => error as GuruError),
        await assistant.importPlaylist({ url: PLAYLIST_URL }).catch((error: unknown) => error as GuruError),
      ];
      expect(service.requests.map((request) => request.headers['x-api-key'])).toEqual(Array(4).fill(KEY));
      const refused = expect.objectContaining({ status: 401, message: 'Invalid API key' });
      expect(errors).toEqual([refused, refused]);
      expect(logLines.join('\n')).not.toContain(KEY);
      expect(JSON.stringify(errors.map((error) => ({ ...error, message: (error as GuruError).message, hint: (error as GuruError).hint })))).not.toContain(KEY);
    });

    it('is the key for no guru on imports when given per guru, and the guru’s own key on crawls', async () => {
      const asked: (string | undefined)[] = [];
      const answer: Responder = (request, res) =>
        json(res, 200, request.url.includes('/crawl/') ? RUNNING : request.url.endsWith('/channel/') ? CHANNEL : PLAYLIST);
      const { service, assistant } = await connect(answer, {
        apiKey: (guru) => {
          asked.push(guru);
          return guru === undefined ? 'key-of-any-guru' : `key-of-${guru}`;
        },
      });
      await assistant.startCrawl('frob', { url: RUNNING.url, ignore_query_params: true });
      await assistant.importChannel({ url: CHANNEL_URL });
      await assistant.importPlaylist({ url: PLAYLIST_URL });
      expect(asked).toEqual(['frob', undefined, undefined]);
      expect(service.requests.map((request) => request.headers['x-api-key'])).toEqual(['key-of-frob', 'key-of-any-guru', 'key-of-any-guru']);
    });
  });
});
