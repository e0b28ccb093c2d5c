/**
 * The video-list endpoints over real HTTP, with the engine reading a YouTube
 * Data API stand-in: channel and playlist import, their error bodies, keys (any
 * guru's key may call them) and the rate limit of the key's guru.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openBackend, openRateLimiter, type OpenedBackend, type OpenedRateLimiter } from '../../src/compose.js';
import { Config, type ConfigInput } from '../../src/config.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { startYouTubeDataApiStandIn, type YouTubeDataApiStandIn } from '../stand-ins/youtube-data-api.js';
import { call, type Reply } from './support.js';

const CHANNEL_ID = 'UCrestdemo00000000000001';
const PLAYLIST_ID = 'PLrestdemo0000000000000000000000001';
/** 11-character video ids. */
const videoIds = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(11 - prefix.length, '0')}`);
const UPLOADS = videoIds('up', 60);
const LISTED = videoIds('pl', 3);
const watchUrls = (ids: readonly string[]) => ids.map((id) => `https://www.youtube.com/watch?v=${id}`);

interface Serving {
  readonly dataDir: string;
  readonly backend: OpenedBackend;
  readonly limiter: OpenedRateLimiter;
  readonly server: RunningHttpServer;
  close(): Promise<void>;
}

/** A REST server over a local engine with these settings (the data directory is made here). */
async function serve(settings: Omit<ConfigInput, 'dataDir'>, logLines?: string[]): Promise<Serving> {
  const dataDir = mkdtempSync(join(tmpdir(), 'guru-rest-videos-'));
  const config = Config.parse({ dataDir, ...settings });
  const logger = logLines === undefined ? silentLogger : createLogger('debug', (line) => logLines.push(line));
  const backend = await openBackend(config, logger);
  const limiter = await openRateLimiter(config, silentLogger);
  const server = await startHttpServer({ backend, logger, host: '127.0.0.1', port: 0, limiter });
  return {
    dataDir,
    backend,
    limiter,
    server,
    async close() {
      await server.close();
      await limiter.close();
      await backend.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function expectError(reply: Reply, status: number, body: Record<string, unknown>) {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toBe('application/json');
  expect(reply.json).toEqual(body);
}

describe('REST video-list endpoints', () => {
  let api: YouTubeDataApiStandIn;
  let serving: Serving;
  let docsKey: string;
  let otherKey: string;
  const logLines: string[] = [];

  const channel = (body: unknown, key = docsKey) => call(serving.server.url, 'POST', '/api/v1/youtube/channel/', { key, body });
  const playlist = (body: unknown, key = docsKey) => call(serving.server.url, 'POST', '/api/v1/youtube/playlist/', { key, body });

  beforeAll(async () => {
    api = await startYouTubeDataApiStandIn({
      channels: [{ id: CHANNEL_ID, handle: 'RestDemo', videoIds: UPLOADS }],
      playlists: [{ id: PLAYLIST_ID, videoIds: LISTED }],
    });
    // The stand-in listens on 127.0.0.1.
    serving = await serve({ youtubeApiKey: api.apiKey, youtubeApiUrl: api.baseUrl, allowPrivateNetwork: true, rateLimitPerMinute: 0 }, logLines);
    docsKey = (await serving.backend.admin!.createGuru({ slug: 'docs' })).api_key;
    otherKey = (await serving.backend.admin!.createGuru({ slug: 'other' })).api_key;
  });

  afterAll(async () => {
    await serving?.close();
    await api?.close();
  });

  describe('POST /youtube/channel/', () => {
    it('lists every upload of a channel named by @handle, in the spec’s shape', async () => {
      const reply = await channel({ url: 'https://www.youtube.com/@RestDemo' });
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual({ channel_identifier: 'RestDemo', identifier_type: 'username', video_count: 60, videos: watchUrls(UPLOADS) });
    });

    it('lists a channel named by its id', async () => {
      const reply = await channel({ url: `https://www.youtube.com/channel/${CHANNEL_ID}` });
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual({ channel_identifier: CHANNEL_ID, identifier_type: 'channel_id', video_count: 60, videos: watchUrls(UPLOADS) });
    });

    it('answers 404 "Channel not found" for a channel YouTube does not know', async () => {
      expectError(await channel({ url: 'https://www.youtube.com/@nobody-here' }), 404, { msg: 'Channel not found' });
    });

    it.each([
      { name: 'an empty body', body: {} },
      { name: 'an empty URL', body: { url: '' } },
      { name: 'a blank URL', body: { url: '   ' } },
      { name: 'a URL of another site', body: { url: 'https://example.com/@RestDemo' } },
      { name: 'a playlist URL', body: { url: `https://www.youtube.com/playlist?list=${PLAYLIST_ID}` } },
      { name: 'a malformed channel id', body: { url: 'https://www.youtube.com/channel/UCshort' } },
    ])('answers 400 "URL is required" for $name', async ({ body }) => {
      expectError(await channel(body), 400, { msg: 'URL is required' });
    });
  });

  describe('POST /youtube/playlist/', () => {
    it('lists the videos of a playlist from a watch URL with list=', async () => {
      const reply = await playlist({ url: `https://www.youtube.com/watch?v=${LISTED[0]}&list=${PLAYLIST_ID}` });
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual({ playlist_id: PLAYLIST_ID, video_count: 3, videos: watchUrls(LISTED) });
    });

    it('answers 404 "Playlist not found" for a playlist YouTube does not know', async () => {
      expectError(await playlist({ url: 'https://www.youtube.com/playlist?list=PLnothing000000000000000000000000' }), 404, { msg: 'Playlist not found' });
    });

    it.each([
      { name: 'an empty body', body: {} },
      { name: 'a watch URL without list=', body: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' } },
      { name: 'a channel URL', body: { url: 'https://www.youtube.com/@RestDemo' } },
      { name: 'text that is no URL', body: { url: 'http://' } },
    ])('answers 400 "URL is required" for $name', async ({ body }) => {
      expectError(await playlist(body), 400, { msg: 'URL is required' });
    });
  });

  // "URL is required" is the spec's message for a missing or unusable URL; other problems are named as what they are.
  it.each(['channel', 'playlist'])('answers 400 "Invalid JSON body" to /youtube/%s/ for a body that is not JSON', async (kind) => {
    const reply = await call(serving.server.url, 'POST', `/api/v1/youtube/${kind}/`, {
      key: docsKey,
      rawBody: '{"url": ',
      headers: { 'content-type': 'application/json' },
    });
    expectError(reply, 400, { msg: 'Invalid JSON body' });
  });

  it.each([
    { name: 'a URL that is not text', body: { url: 7 }, message: 'url must be a string' },
    { name: 'a URL over 4096 characters', body: { url: `https://www.youtube.com/@${'a'.repeat(4096)}` }, message: 'url must be at most 4096 characters' },
  ])('answers 400 naming the problem for $name', async ({ body, message }) => {
    expectError(await channel(body), 400, { msg: message });
    expectError(await playlist(body), 400, { msg: message });
  });

  describe('keys', () => {
    it('lets the key of any guru import, since the lists belong to no guru', async () => {
      expect((await channel({ url: 'https://www.youtube.com/@RestDemo' }, otherKey)).status).toBe(200);
      expect((await playlist({ url: `https://www.youtube.com/playlist?list=${PLAYLIST_ID}` }, otherKey)).status).toBe(200);
    });

    it.each(['channel', 'playlist'])('refuses /youtube/%s/ without a valid key, before asking YouTube', async (kind) => {
      const before = api.server.requests.length;
      for (const key of [undefined, '', 'not-a-key']) {
        const reply = await call(serving.server.url, 'POST', `/api/v1/youtube/${kind}/`, {
          ...(key === undefined ? {} : { key }),
          body: { url: 'https://www.youtube.com/@RestDemo' },
        });
        expectError(reply, 401, { msg: 'Invalid API key' });
      }
      expect(api.server.requests.length).toBe(before);
    });

    it('never lets the YouTube Data API key out, in answers or logs', async () => {
      const replies = [await channel({ url: 'https://www.youtube.com/@RestDemo' }), await channel({ url: 'https://www.youtube.com/@nobody-here' })];
      for (const reply of replies) expect(reply.text).not.toContain(api.apiKey);
      expect(logLines.join('')).not.toContain(api.apiKey);
      expect(logLines.join('')).not.toContain(docsKey);
    });
  });
});

describe('REST video-list endpoints without a YouTube Data API key', () => {
  let api: YouTubeDataApiStandIn;
  let serving: Serving;
  let key: string;

  beforeAll(async () => {
    api = await startYouTubeDataApiStandIn({ channels: [{ id: CHANNEL_ID, handle: 'RestDemo', videoIds: UPLOADS }] });
    serving = await serve({ youtubeApiUrl: api.baseUrl, allowPrivateNetwork: true, rateLimitPerMinute: 0 });
    key = (await serving.backend.admin!.createGuru({ slug: 'docs' })).api_key;
  });

  afterAll(async () => {
    await serving?.close();
    await api?.close();
  });

  it.each([
    ['channel', 'https://www.youtube.com/@RestDemo'],
    ['playlist', `https://www.youtube.com/playlist?list=${PLAYLIST_ID}`],
  ])('answers /youtube/%s/ with 503 naming GURU_YOUTUBE_API_KEY, and no hint in the body', async (kind, url) => {
    const reply = await call(serving.server.url, 'POST', `/api/v1/youtube/${kind}/`, { key, body: { url } });
    expect(reply.status).toBe(503);
    expect(reply.json).toEqual({
      msg: 'No YouTube Data API key is configured; set GURU_YOUTUBE_API_KEY to an API key of a Google Cloud project with the YouTube Data API v3 enabled',
    });
    expect(api.server.requests).toEqual([]);
  });

  it('still checks the URL first: a malformed one is 400 "URL is required"', async () => {
    const reply = await call(serving.server.url, 'POST', '/api/v1/youtube/channel/', { key, body: { url: 'https://example.com/' } });
    expectError(reply, 400, { msg: 'URL is required' });
  });
});

describe('REST video-list rate limit', () => {
  let api: YouTubeDataApiStandIn;
  let serving: Serving;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    api = await startYouTubeDataApiStandIn({ channels: [{ id: CHANNEL_ID, handle: 'RestDemo', videoIds: UPLOADS }] });
    serving = await serve({ youtubeApiKey: api.apiKey, youtubeApiUrl: api.baseUrl, allowPrivateNetwork: true, rateLimitPerMinute: 2 });
    await serving.backend.admin!.createGuru({ slug: 'limited' });
    await serving.backend.admin!.createGuru({ slug: 'elsewhere' });
  });

  beforeEach(async () => {
    // A key of its own for each test, so that each starts with full buckets.
    key = (await serving.backend.admin!.createApiKey('limited')).api_key;
    otherKey = (await serving.backend.admin!.createApiKey('elsewhere')).api_key;
  });

  afterAll(async () => {
    await serving?.close();
    await api?.close();
  });

  const importChannel = (withKey: string) =>
    call(serving.server.url, 'POST', '/api/v1/youtube/channel/', { key: withKey, body: { url: 'https://www.youtube.com/@RestDemo' } });

  it('counts imports with the key’s other calls to its guru, answering 429 "Request was throttled." with Retry-After', async () => {
    expect((await call(serving.server.url, 'GET', '/api/v1/limited/data-sources/', { key })).status).toBe(200);
    expect((await importChannel(key)).status).toBe(200);
    const throttled = await importChannel(key);
    expectError(throttled, 429, { msg: 'Request was throttled.' });
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const playlist = await call(serving.server.url, 'POST', '/api/v1/youtube/playlist/', { key, body: { url: 'https://www.youtube.com/playlist?list=PLx' } });
    expectError(playlist, 429, { msg: 'Request was throttled.' });
    // The guru's other calls are over the limit too.
    expect((await call(serving.server.url, 'GET', '/api/v1/limited/data-sources/', { key })).status).toBe(429);
  });

  it('leaves the keys of other gurus their own limit', async () => {
    expect((await importChannel(key)).status).toBe(200);
    expect((await importChannel(key)).status).toBe(200);
    expect((await importChannel(key)).status).toBe(429);
    expect((await importChannel(otherKey)).status).toBe(200);
  });
});
