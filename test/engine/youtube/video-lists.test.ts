import { afterEach, describe, expect, it } from 'vitest';
import { GuruError } from '../../../src/core/errors.js';
import { ChannelImport, PlaylistImport } from '../../../src/core/schemas.js';
import { VideoListImporter, type VideoListSettings } from '../../../src/engine/youtube/video-lists.js';
import { HttpFetcher, type FetchPolicy } from '../../../src/net/http-fetcher.js';
import { type Handler, json, replying, startLoopbackServer } from '../../support/loopback-server.js';
import {
  googleError,
  startYouTubeDataApiStandIn,
  uploadsOf,
  type YouTubeDataApiFixtures,
  type YouTubeDataApiStandIn,
} from '../../stand-ins/youtube-data-api.js';

const BIG_CHANNEL = 'UCbigchannel00000000000A';
const QUIET_CHANNEL = 'UCquietchannel000000000B';
const UNKNOWN_CHANNEL = 'UCnobody0000000000000000';
const PLAYLIST = 'PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf';
const PRIVATE_PLAYLIST = 'PLprivate0000000000000000000000000';

/** 11-character video ids, distinct and in a recognisable order. */
const videoIds = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}${String(index).padStart(11 - prefix.length, '0')}`);
const watchUrls = (ids: readonly string[]) => ids.map((id) => `https://www.youtube.com/watch?v=${id}`);

const UPLOADS = videoIds('up', 120);
const PLAYLIST_VIDEOS = [...videoIds('pl', 7), 'pl000000003'];

const FIXTURES: YouTubeDataApiFixtures = {
  channels: [
    { id: BIG_CHANNEL, handle: 'DemoChannel', videoIds: UPLOADS },
    { id: QUIET_CHANNEL, handle: 'quiet.one', videoIds: [] },
    { id: 'UCunicode000000000000000', handle: 'café-münchen', videoIds: ['uni00000001'] },
  ],
  playlists: [
    { id: PLAYLIST, videoIds: PLAYLIST_VIDEOS },
    { id: PRIVATE_PLAYLIST, videoIds: ['secret00001'], private: true },
  ],
  disabledKeys: ['AIzaSyD-project-without-the-api-enabled00'],
};

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function standIn(fixtures: YouTubeDataApiFixtures = FIXTURES): Promise<YouTubeDataApiStandIn> {
  const started = await startYouTubeDataApiStandIn(fixtures);
  cleanups.push(() => started.close());
  return started;
}

function importer(settings: VideoListSettings, policy: Partial<FetchPolicy> = {}): VideoListImporter {
  const fetcher = new HttpFetcher({ allowPrivateNetwork: true, ...policy });
  cleanups.push(() => fetcher.close());
  return new VideoListImporter(fetcher, { retryDelaysMs: [0, 0], ...settings });
}

async function importerFor(api: YouTubeDataApiStandIn, settings: Partial<VideoListSettings> = {}): Promise<VideoListImporter> {
  return importer({ apiKey: api.apiKey, baseUrl: api.baseUrl, ...settings });
}

/** The GuruError a call rejects with. */
async function guruErrorOf(promise: Promise<unknown>): Promise<GuruError> {
  const error: unknown = await promise.then(
    () => new Error('expected the import to fail'),
    (rejection: unknown) => rejection,
  );
  if (!(error instanceof GuruError)) throw error;
  return error;
}

/** Everything of an error a client or a log could see. */
function visibleText(error: GuruError): string {
  return [error.message, error.hint ?? '', JSON.stringify(error.toBody()), String(error.stack)].join('\n');
}

describe('VideoListImporter: channels', () => {
  it('resolves a handle to its uploads and reads 120 videos over three pages of 50, in the API order', async () => {
    const api = await standIn();
    const result = await (await importerFor(api)).importChannel('https://www.youtube.com/@DemoChannel');

    expect(ChannelImport.parse(result)).toEqual({
      channel_identifier: 'DemoChannel',
      identifier_type: 'username',
      video_count: 120,
      videos: watchUrls(UPLOADS),
    });
    const [lookup, ...pages] = api.server.requests.map((request) => request.url);
    expect(lookup?.pathname).toBe('/youtube/v3/channels');
    expect(Object.fromEntries(lookup?.searchParams ?? [])).toEqual({ part: 'contentDetails', forHandle: '@DemoChannel', key: api.apiKey });
    expect(pages).toHaveLength(3);
    for (const page of pages) {
      expect(page.pathname).toBe('/youtube/v3/playlistItems');
      expect(page.searchParams.get('playlistId')).toBe(uploadsOf(BIG_CHANNEL));
      expect(page.searchParams.get('maxResults')).toBe('50');
      expect(page.searchParams.get('part')).toBe('contentDetails');
    }
    expect(pages.map((page) => page.searchParams.has('pageToken'))).toEqual([false, true, true]);
  });

  it('resolves a channel id, given without a scheme, by id', async () => {
    const api = await standIn();
    const result = await (await importerFor(api)).importChannel(`youtube.com/channel/${BIG_CHANNEL}`);

    expect(result).toMatchObject({ channel_identifier: BIG_CHANNEL, identifier_type: 'channel_id', video_count: 120 });
    expect(result.videos[0]).toBe('https://www.youtube.com/watch?v=up000000000');
    expect(api.server.requests[0]?.url.searchParams.get('id')).toBe(BIG_CHANNEL);
  });

  it.each([
    ['youtube.com/@DemoChannel', 'DemoChannel'],
    ['www.youtube.com/@demochannel/videos', 'demochannel'],
    ['http://m.youtube.com/@DemoChannel?si=tracking#top', 'DemoChannel'],
    ['https://www.youtube.com/@caf%C3%A9-m%C3%BCnchen', 'café-münchen'],
  ])('takes the handle of %s as given, without the @', async (url, handle) => {
    const api = await standIn();
    const result = await (await importerFor(api)).importChannel(url);

    expect(result.channel_identifier).toBe(handle);
    expect(result.identifier_type).toBe('username');
    expect(result.video_count).toBeGreaterThan(0);
  });

  it('answers a channel that never uploaded with no videos (YouTube has no uploads playlist for it)', async () => {
    const api = await standIn();
    const result = await (await importerFor(api)).importChannel('https://www.youtube.com/@quiet.one');

    expect(result).toEqual({ channel_identifier: 'quiet.one', identifier_type: 'username', video_count: 0, videos: [] });
  });

  it.each([`https://www.youtube.com/channel/${UNKNOWN_CHANNEL}`, 'https://www.youtube.com/@nobody-here'])(
    'answers 404 "Channel not found" for %s',
    async (url) => {
      const api = await standIn();
      const error = await guruErrorOf((await importerFor(api)).importChannel(url));

      expect(error).toMatchObject({ status: 404, field: 'msg', message: 'Channel not found' });
      expect(error.hint).toMatch(/UCnobody|@nobody-here/);
    },
  );
});

describe('VideoListImporter: playlists', () => {
  it.each([
    `https://www.youtube.com/watch?v=pl000000002&list=${PLAYLIST}`,
    `https://www.youtube.com/playlist?list=${PLAYLIST}`,
    `youtube.com/watch?list=${PLAYLIST}&v=pl000000002&index=3`,
  ])('reads every video of %s, each once', async (url) => {
    const api = await standIn();
    const result = await (await importerFor(api)).importPlaylist(url);

    expect(PlaylistImport.parse(result)).toEqual({
      playlist_id: PLAYLIST,
      video_count: 7,
      videos: watchUrls(videoIds('pl', 7)),
    });
    expect(api.server.requests[0]?.url.searchParams.get('playlistId')).toBe(PLAYLIST);
  });

  it('pages through a long playlist', async () => {
    const long = videoIds('lg', 101);
    const api = await standIn({ playlists: [{ id: 'PLlong', videoIds: long }] });
    const result = await (await importerFor(api)).importPlaylist('https://www.youtube.com/playlist?list=PLlong');

    expect(result.videos).toEqual(watchUrls(long));
    expect(api.server.requests).toHaveLength(3);
  });

  it('answers 404 "Playlist not found" for a playlist YouTube does not have', async () => {
    const api = await standIn();
    const error = await guruErrorOf((await importerFor(api)).importPlaylist('https://www.youtube.com/playlist?list=PLdoesnotexist'));

    expect(error).toMatchObject({ status: 404, field: 'msg', message: 'Playlist not found' });
    expect(error.hint).toContain('PLdoesnotexist');
  });

  it('answers 404 "Playlist not found" for a private playlist, and says it is private', async () => {
    const api = await standIn();
    const error = await guruErrorOf((await importerFor(api)).importPlaylist(`https://www.youtube.com/playlist?list=${PRIVATE_PLAYLIST}`));

    expect(error).toMatchObject({ status: 404, message: 'Playlist not found' });
    expect(error.hint).toContain('private');
  });
});

describe('VideoListImporter: malformed URLs', () => {
  it.each([
    ['', 'Give a channel URL'],
    ['   ', 'Give a channel URL'],
    ['not a url at all', 'not a URL'],
    ['https://vimeo.com/@DemoChannel', 'not a YouTube URL'],
    ['ftp://www.youtube.com/@DemoChannel', 'not a YouTube URL'],
    ['https://www.youtube.com/', 'not a channel URL'],
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'not a channel URL'],
    [`https://www.youtube.com/playlist?list=${PLAYLIST}`, 'import_playlist'],
    ['https://www.youtube.com/channel/', 'UC followed by 22'],
    ['https://www.youtube.com/channel/UCshort', 'UC followed by 22'],
    ['https://www.youtube.com/@a', '3 to 30'],
    ['https://www.youtube.com/@has space', '3 to 30'],
    ['https://www.youtube.com/@bad%E0%A4%A', '3 to 30'],
    ['https://www.youtube.com/c/LegacyName', 'legacy /c/'],
    ['https://www.youtube.com/user/LegacyName', 'legacy /user/'],
  ])('refuses the channel URL %j with 400 "URL is required" and a hint naming the problem (%s)', async (url, problem) => {
    const api = await standIn();
    const error = await guruErrorOf((await importerFor(api)).importChannel(url));

    expect(error).toMatchObject({ status: 400, field: 'msg', message: 'URL is required' });
    expect(error.hint).toContain(problem);
    expect(api.server.requests).toHaveLength(0);
  });

  it.each([
    ['', 'Give a playlist URL'],
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'no list= parameter'],
    ['https://www.youtube.com/playlist?list=', 'no list= parameter'],
    ['https://www.youtube.com/playlist?list=PL%20bad', 'not a playlist id'],
    ['https://www.youtube.com/@DemoChannel', 'import_channel'],
    ['https://www.youtube.com/feed/library?list=PLx', 'not a playlist URL'],
    ['https://example.com/watch?v=dQw4w9WgXcQ&list=PLx', 'not a YouTube URL'],
  ])('refuses the playlist URL %j with 400 "URL is required" and a hint naming the problem (%s)', async (url, problem) => {
    const api = await standIn();
    const error = await guruErrorOf((await importerFor(api)).importPlaylist(url));

    expect(error).toMatchObject({ status: 400, field: 'msg', message: 'URL is required' });
    expect(error.hint).toContain(problem);
    expect(api.server.requests).toHaveLength(0);
  });

  it('takes the playlist of a youtu.be share link', async () => {
    const api = await standIn();
    const result = await (await importerFor(api)).importPlaylist(`https://youtu.be/pl000000002?list=${PLAYLIST}&si=abc`);

    expect(result.playlist_id).toBe(PLAYLIST);
  });
});

describe('VideoListImporter: API key and quota', () => {
  it.each([undefined, '', '   '])('answers 503 naming GURU_YOUTUBE_API_KEY and the YouTube Data API v3 when the key is %j', async (apiKey) => {
    const api = await standIn();
    const videoLists = importer({ apiKey, baseUrl: api.baseUrl });

    for (const error of [
      await guruErrorOf(videoLists.importChannel('https://www.youtube.com/@DemoChannel')),
      await guruErrorOf(videoLists.importPlaylist(`https://www.youtube.com/playlist?list=${PLAYLIST}`)),
    ]) {
      expect(error).toMatchObject({ status: 503, field: 'msg' });
      expect(error.message).toContain('GURU_YOUTUBE_API_KEY');
      expect(error.message).toContain('YouTube Data API v3');
      expect(error.hint).toContain('Credentials');
    }
    expect(api.server.requests).toHaveLength(0);
  });

  it('answers 503 when Google rejects the key, with its reason and without the key', async () => {
    const api = await standIn();
    const badKey = 'AIzaSyD-not-a-real-key-000000000000000000';
    const error = await guruErrorOf(importer({ apiKey: badKey, baseUrl: api.baseUrl }).importChannel('https://www.youtube.com/@DemoChannel'));

    expect(error).toMatchObject({ status: 503, field: 'msg' });
    expect(error.message).toBe('The YouTube Data API rejected the API key in GURU_YOUTUBE_API_KEY (API key not valid. Please pass a valid API key); set a valid key');
    expect(visibleText(error)).not.toContain(badKey);
    expect(api.server.requests[0]?.url.searchParams.get('key')).toBe(badKey);
  });

  it('answers 503 when the key belongs to a project that has not enabled the API', async () => {
    const api = await standIn();
    const error = await guruErrorOf(
      importer({ apiKey: FIXTURES.disabledKeys?.[0], baseUrl: api.baseUrl }).importPlaylist(`https://www.youtube.com/playlist?list=${PLAYLIST}`),
    );

    expect(error).toMatchObject({ status: 503 });
    expect(error.message).toContain('YouTube Data API v3 is not enabled');
  });

  it('answers 503 for a key whose restrictions refuse this server', async () => {
    const api = await standIn();
    api.server.failNext('/youtube/v3/channels', googleError(403, 'Requests from this IP address are blocked.', 'forbidden', 'global', 'PERMISSION_DENIED', 'API_KEY_IP_ADDRESS_BLOCKED'));
    const error = await guruErrorOf((await importerFor(api)).importChannel('https://www.youtube.com/@DemoChannel'));

    expect(error.status).toBe(503);
    expect(error.message).toContain("the key's restrictions");
    expect(error.message).toContain('Requests from this IP address are blocked');
  });

  it('answers 429 with the time to the quota renewal when the daily quota is used up', async () => {
    const api = await standIn();
    api.exhaustQuota();
    const clock = () => new Date('2025-03-10T15:00:00Z'); // 08:00 in Los Angeles (PDT)
    const error = await guruErrorOf((await importerFor(api, { clock })).importChannel('https://www.youtube.com/@DemoChannel'));

    expect(error).toMatchObject({ status: 429, field: 'msg', retryAfterSeconds: 16 * 3600 });
    expect(error.message).toBe(
      'The daily YouTube Data API quota of the key in GURU_YOUTUBE_API_KEY is used up; it renews at midnight Pacific Time, in about 16 hours',
    );
    expect(api.server.requests).toHaveLength(1);
  });

  it('answers 429 with Google\'s Retry-After when it limits the rate, without retrying', async () => {
    const api = await standIn();
    api.server.failNext('/youtube/v3/playlistItems', googleError(403, 'Rate limit exceeded', 'rateLimitExceeded', 'usageLimits'));
    const first = await guruErrorOf((await importerFor(api)).importPlaylist(`https://www.youtube.com/playlist?list=${PLAYLIST}`));
    api.server.failNext('/youtube/v3/playlistItems', { ...json(429, { error: { code: 429, message: 'Too many requests', status: 'RESOURCE_EXHAUSTED' } }), headers: { 'retry-after': '30' } });
    const second = await guruErrorOf((await importerFor(api)).importPlaylist(`https://www.youtube.com/playlist?list=${PLAYLIST}`));

    expect(first).toMatchObject({ status: 429, retryAfterSeconds: 60 });
    expect(second).toMatchObject({ status: 429, retryAfterSeconds: 30 });
    expect(second.message).toBe('The YouTube Data API is limiting the rate of requests; try again in 30 seconds');
    expect(api.server.requests).toHaveLength(2);
  });
});

describe('VideoListImporter: an unreliable API', () => {
  it('retries 5xx answers and goes on', async () => {
    const api = await standIn();
    api.server.failNext('/youtube/v3/channels', googleError(503, 'The service is currently unavailable.', 'backendError', 'global', 'UNAVAILABLE'));
    api.server.failNext('/youtube/v3/playlistItems', googleError(500, 'Internal error encountered.', 'backendError', 'global', 'INTERNAL'), 2);
    const result = await (await importerFor(api)).importChannel('https://www.youtube.com/@DemoChannel');

    expect(result.video_count).toBe(120);
    expect(api.server.requests.map((request) => request.url.pathname.split('/').pop())).toEqual([
      'channels',
      'channels',
      'playlistItems',
      'playlistItems',
      'playlistItems',
      'playlistItems',
      'playlistItems',
    ]);
  });

  it('answers 502 once three attempts found the API down', async () => {
    const api = await standIn();
    api.server.failNext('/youtube/v3/playlistItems', googleError(503, 'The service is currently unavailable.', 'backendError', 'global'), 3);
    const error = await guruErrorOf((await importerFor(api)).importPlaylist(`https://www.youtube.com/playlist?list=${PLAYLIST}`));

    expect(error).toMatchObject({ status: 502, field: 'msg' });
    expect(error.message).toBe('The YouTube Data API is unavailable (answered 503 Service Unavailable; 3 attempts); try again later');
    expect(api.server.requests).toHaveLength(3);
  });

  it('answers 504 after timeouts, with no key in the message', async () => {
    const hanging = await startLoopbackServer(replying(() => new Promise(() => {})));
    cleanups.push(() => hanging.close());
    const key = 'AIzaSyD-secret-key-for-the-timeout-test00';
    const videoLists = importer({ apiKey: key, baseUrl: `${hanging.origin}/youtube/v3`, retryDelaysMs: [0] }, { headersTimeoutMs: 200 });
    const error = await guruErrorOf(videoLists.importChannel('https://www.youtube.com/@DemoChannel'));

    expect(error.status).toBe(504);
    expect(error.message).toMatch(/^The YouTube Data API did not answer in time \(.*\/youtube\/v3\/channels did not answer within 0\.2 s; 2 attempts\); try again later$/);
    expect(visibleText(error)).not.toContain(key);
    expect(hanging.requests).toHaveLength(2);
  });

  it('answers 502 when the API cannot be reached', async () => {
    const gone = await startLoopbackServer(replying(() => json(200, {})));
    const baseUrl = `${gone.origin}/youtube/v3`;
    await gone.close();
    const error = await guruErrorOf(importer({ apiKey: 'AIzaSyD-key', baseUrl }).importChannel('https://www.youtube.com/@DemoChannel'));

    expect(error.status).toBe(502);
    expect(error.message).toContain('refused the connection');
    expect(error.message).toContain('3 attempts');
  });

  it.each([
    ['a page that is not the API', (base: string) => `${base}/not-the-api`, 'HTTP 404 without a Google error body'],
    ['JSON of another shape', (base: string) => `${base}/wrong-shape`, 'channels answered JSON of another shape at items.0.id'],
    ['a body that is not JSON', (base: string) => `${base}/html`, 'not JSON'],
  ])('answers 502 naming GURU_YOUTUBE_API_URL for %s', async (_what, baseUrl, detail) => {
    const handler: Handler = (request) => {
      if (request.url.pathname.startsWith('/wrong-shape/')) return json(200, { items: [{ name: 'no id' }] });
      if (request.url.pathname.startsWith('/html/')) return { status: 200, headers: { 'content-type': 'text/html' }, body: '<html>hi</html>' };
      return { status: 404, body: 'Not Found' };
    };
    const server = await startLoopbackServer(replying(handler));
    cleanups.push(() => server.close());
    const error = await guruErrorOf(importer({ apiKey: 'AIzaSyD-key', baseUrl: baseUrl(server.origin) }).importChannel('https://www.youtube.com/@DemoChannel'));

    expect(error.status).toBe(502);
    expect(error.message).toContain(detail);
    expect(error.message).toContain('GURU_YOUTUBE_API_URL');
  });

  it('stops when the API hands out the same page token again', async () => {
    const server = await startLoopbackServer(replying((request) =>
      json(200, { nextPageToken: 'EAAaSAME', items: [{ contentDetails: { videoId: `v${request.url.searchParams.get('pageToken') ?? 'first'}`.slice(0, 11) } }] }),
    ));
    cleanups.push(() => server.close());
    const error = await guruErrorOf(importer({ apiKey: 'AIzaSyD-key', baseUrl: server.origin }).importPlaylist('https://www.youtube.com/playlist?list=PLloop'));

    expect(error.status).toBe(502);
    expect(error.message).toContain('the same nextPageToken twice');
    expect(server.requests).toHaveLength(2);
  });

  it('rejects with the reason of an aborted signal', async () => {
    const api = await standIn();
    const controller = new AbortController();
    const reason = new Error('caller went away');
    controller.abort(reason);

    await expect((await importerFor(api)).importChannel('https://www.youtube.com/@DemoChannel', controller.signal)).rejects.toBe(reason);
  });

  it('says which setting lets a base URL on a loopback address through', async () => {
    const api = await standIn();
    const error = await guruErrorOf(importer({ apiKey: api.apiKey, baseUrl: api.baseUrl }, { allowPrivateNetwork: false }).importChannel('youtube.com/@DemoChannel'));

    expect(error.status).toBe(503);
    expect(error.message).toBe(
      'GURU_YOUTUBE_API_URL points at an address this server may not reach: 127.0.0.1 is a loopback address; set GURU_ALLOW_PRIVATE_NETWORK=1 to allow private and loopback addresses',
    );
    expect(api.server.requests).toHaveLength(0);
  });

  it('refuses a base URL that is not http(s), naming GURU_YOUTUBE_API_URL', async () => {
    const error = await guruErrorOf(importer({ apiKey: 'AIzaSyD-key', baseUrl: 'ftp://example.com/youtube/v3' }).importChannel('https://www.youtube.com/@DemoChannel'));

    expect(error.status).toBe(503);
    expect(error.message).toContain('GURU_YOUTUBE_API_URL');
  });
});

describe('VideoListImporter: the API key stays secret', () => {
  it('never puts the key in a message, a hint or a body, whatever fails', async () => {
    const api = await standIn();
    const hanging = await startLoopbackServer(replying(() => new Promise(() => {})));
    cleanups.push(() => hanging.close());
    const html = await startLoopbackServer(replying(() => ({ status: 200, headers: { 'content-type': 'text/html' }, body: `<p>${api.apiKey}</p>` })));
    cleanups.push(() => html.close());
    // Google's own messages could echo the key one day; they are redacted too.
    api.server.failNext('/youtube/v3/channels', googleError(400, `Bad key ${api.apiKey}.`, 'badRequest', 'global', 'INVALID_ARGUMENT', 'API_KEY_INVALID'));

    const videoLists = await importerFor(api);
    const errors = [
      await guruErrorOf(videoLists.importChannel('https://www.youtube.com/@DemoChannel')),
      await guruErrorOf(videoLists.importChannel('https://www.youtube.com/@nobody-here')),
      await guruErrorOf(videoLists.importPlaylist('https://www.youtube.com/playlist?list=PLmissing')),
      await guruErrorOf(importer({ apiKey: api.apiKey, baseUrl: hanging.origin, retryDelaysMs: [] }, { headersTimeoutMs: 100 }).importChannel('youtube.com/@DemoChannel')),
      await guruErrorOf(importer({ apiKey: api.apiKey, baseUrl: `${html.origin}/v3` }).importChannel('youtube.com/@DemoChannel')),
    ];
    api.exhaustQuota();
    errors.push(await guruErrorOf(videoLists.importChannel('https://www.youtube.com/@DemoChannel')));

    expect(errors.map((error) => error.status)).toEqual([503, 404, 404, 504, 502, 429]);
    expect(errors[0]?.message).toContain('Bad key ***');
    for (const error of errors) expect(visibleText(error)).not.toContain(api.apiKey);
  });
});
