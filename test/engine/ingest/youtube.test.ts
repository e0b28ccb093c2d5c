import { afterEach, describe, expect, it } from 'vitest';
import { SourceError } from '../../../src/engine/ingest/sources/types.js';
import { transcriptParagraphs, videoId, YouTubeReader } from '../../../src/engine/ingest/sources/youtube.js';
import { FetchFailure, HttpFetcher } from '../../../src/net/http-fetcher.js';
import { startYouTubeStandIn, type YouTubeStandIn, type YouTubeVideoFixture } from '../../stand-ins/youtube.js';

const VIDEOS: YouTubeVideoFixture[] = [
  {
    id: 'dQw4w9WgXcQ',
    title: 'Indexing 101: BM25 & friends',
    captions: [
      { start: 0.4, duration: 3.2, text: "Welcome! Today we'll talk about BM25." },
      { start: 3.6, duration: 4, text: 'Scores depend on term frequency\nand document length.' },
      { start: 58.9, duration: 3, text: 'That covers the basics.' },
      { start: 61.2, duration: 5, text: 'Next: tokens <b> & stemming.' },
      { start: 75, duration: 2, text: '   ' },
      { start: 130.5, duration: 4, text: 'Finally, "fusion" with vectors.' },
    ],
  },
  { id: 'noCaptions1', title: 'Silent film', captions: null },
  { id: 'privateVid1', title: 'Private', captions: [], playability: { status: 'LOGIN_REQUIRED', reason: 'This video is private' } },
];

let standIn: YouTubeStandIn | undefined;
let fetcher: HttpFetcher | undefined;

afterEach(async () => {
  await standIn?.close();
  await fetcher?.close();
  standIn = undefined;
  fetcher = undefined;
});

async function setUp(): Promise<{ reader: YouTubeReader; youtube: YouTubeStandIn }> {
  const youtube = await startYouTubeStandIn(VIDEOS);
  standIn = youtube;
  fetcher = new HttpFetcher({ allowPrivateNetwork: true });
  return { reader: new YouTubeReader(fetcher, { baseUrl: youtube.baseUrl }), youtube };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('YouTubeReader', () => {
  it('reads the title and the transcript in timestamped paragraphs of about a minute', async () => {
    const { reader, youtube } = await setUp();
    const document = await reader.read('https://www.youtube.com/watch?v=dQw4w9WgXcQ');

    expect(document).toEqual({
      title: 'Indexing 101: BM25 & friends',
      url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      markdown: [
        '# Indexing 101: BM25 & friends',
        '',
        "[00:00] Welcome! Today we'll talk about BM25. Scores depend on term frequency and document length. That covers the basics.",
        '',
        '[01:01] Next: tokens <b> & stemming.',
        '',
        '[02:10] Finally, "fusion" with vectors.',
        '',
      ].join('\n'),
    });

    const [watch, player, captions] = youtube.server.requests;
    expect(youtube.server.requests).toHaveLength(3);
    expect(watch).toMatchObject({ method: 'GET', path: '/watch?v=dQw4w9WgXcQ' });
    expect(player).toMatchObject({ method: 'POST', path: `/youtubei/v1/player?key=${youtube.apiKey}` });
    expect(JSON.parse(player?.body ?? '')).toMatchObject({ videoId: 'dQw4w9WgXcQ', context: { client: { clientName: 'ANDROID' } } });
    expect(player?.headers['content-type']).toBe('application/json');
    expect(captions?.method).toBe('GET');
    expect(captions?.url.pathname).toBe('/api/timedtext');
    expect(captions?.url.searchParams.get('v')).toBe('dQw4w9WgXcQ');
    expect(captions?.url.searchParams.has('fmt')).toBe(false);
  });

  it('accepts every video URL form and writes the canonical watch URL', async () => {
    const { reader } = await setUp();
    const forms = [
      'https://youtu.be/dQw4w9WgXcQ?si=share',
      'https://www.youtube.com/shorts/dQw4w9WgXcQ',
      'https://www.youtube.com/embed/dQw4w9WgXcQ?start=30',
      'https://www.youtube.com/live/dQw4w9WgXcQ',
      'https://m.youtube.com/watch?v=dQw4w9WgXcQ&t=42s',
      'https://youtube.com/watch?v=dQw4w9WgXcQ&list=PL1234567890',
      'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
    ];
    for (const form of forms) {
      const document = await reader.read(form);
      expect(document.url).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
    }
  });

  it('refuses URLs that name no YouTube video, without any request', async () => {
    const { reader, youtube } = await setUp();
    const bad = [
      'https://vimeo.com/123456789',
      'https://www.youtube.com/playlist?list=PL1234567890',
      'https://www.youtube.com/watch?v=short',
      'https://www.youtube.com/@channel',
      'https://youtu.be/',
      'ftp://youtu.be/dQw4w9WgXcQ',
      'dQw4w9WgXcQ',
    ];
    for (const url of bad) {
      const error = await rejection(reader.read(url));
      expect(error).toBeInstanceOf(SourceError);
      expect((error as Error).message).toContain('is not a YouTube video URL');
    }
    expect(youtube.server.requests).toHaveLength(0);
  });

  it('fails a video without captions with a clear source error', async () => {
    const { reader } = await setUp();
    const error = await rejection(reader.read('https://youtu.be/noCaptions1'));
    expect(error).toBeInstanceOf(SourceError);
    expect((error as Error).message).toBe('This video has no transcript (captions are disabled or missing): https://www.youtube.com/watch?v=noCaptions1');
    expect((error as SourceError).retryable).toBe(false);
  });

  it('fails private and missing videos as unavailable, with YouTube’s reason', async () => {
    const { reader } = await setUp();
    const private_ = await rejection(reader.read('https://youtu.be/privateVid1'));
    expect(private_).toBeInstanceOf(SourceError);
    expect((private_ as Error).message).toBe('This video is unavailable (YouTube says: This video is private): https://www.youtube.com/watch?v=privateVid1');
    const missing = await rejection(reader.read('https://youtu.be/abcdefghijk'));
    expect((missing as Error).message).toBe('This video is unavailable (YouTube says: This video is unavailable): https://www.youtube.com/watch?v=abcdefghijk');
  });

  it('leaves 429 and 5xx retryable, and other refusals not, on any of the three requests', async () => {
    const { reader, youtube } = await setUp();
    youtube.server.failNext('/api/timedtext', { status: 429, headers: { 'retry-after': '60' } });
    const limited = await rejection(reader.read('https://youtu.be/dQw4w9WgXcQ'));
    expect(limited).toBeInstanceOf(FetchFailure);
    expect(limited).toMatchObject({ status: 429, retryable: true, retryAfterMs: 60_000 });

    youtube.server.failNext('/youtubei/v1/player', { status: 503, headers: { 'retry-after': '2' } });
    const unavailable = await rejection(reader.read('https://youtu.be/dQw4w9WgXcQ'));
    expect(unavailable).toBeInstanceOf(FetchFailure);
    expect(unavailable).toMatchObject({ kind: 'http_status', status: 503, retryable: true, retryAfterMs: 2000 });

    youtube.server.failNext('/youtubei/v1/player', { status: 400, body: { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT' } } });
    const invalid = await rejection(reader.read('https://youtu.be/dQw4w9WgXcQ'));
    expect(invalid).toBeInstanceOf(FetchFailure);
    expect(invalid).toMatchObject({ kind: 'http_status', status: 400, retryable: false });
    expect((invalid as Error).message).toBe(`${youtube.baseUrl}/youtubei/v1/player?key=${youtube.apiKey} answered 400 Bad Request`);

    youtube.server.failNext('/watch', { status: 500 });
    await expect(reader.read('https://youtu.be/dQw4w9WgXcQ')).rejects.toMatchObject({ status: 500, retryable: true });

    youtube.server.failNext('/watch', { status: 200, headers: { 'content-type': 'text/html' }, body: '<form><div class="g-recaptcha" data-sitekey="x"></div></form>' });
    await expect(reader.read('https://youtu.be/dQw4w9WgXcQ')).rejects.toMatchObject({ status: 429, retryable: true });

    await expect(reader.read('https://youtu.be/dQw4w9WgXcQ')).resolves.toMatchObject({ title: 'Indexing 101: BM25 & friends' });
  });

  it('sends the watch page and caption requests through the fetcher’s address policy', async () => {
    const youtube = await startYouTubeStandIn(VIDEOS);
    standIn = youtube;
    fetcher = new HttpFetcher({ allowPrivateNetwork: false });
    const reader = new YouTubeReader(fetcher, { baseUrl: youtube.baseUrl });
    const error = await rejection(reader.read('https://youtu.be/dQw4w9WgXcQ'));
    expect(error).toMatchObject({ kind: 'blocked_address' });
    expect(youtube.server.requests).toHaveLength(0);
  });

  it('stops when the caller aborts', async () => {
    const { reader } = await setUp();
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    await expect(reader.read('https://youtu.be/dQw4w9WgXcQ', controller.signal)).rejects.toThrow('shutting down');
  });
});

describe('videoId and transcriptParagraphs', () => {
  it('takes the id from the query or the path', () => {
    expect(videoId('https://www.youtube.com/watch?feature=share&v=a-b_c1234XY')).toBe('a-b_c1234XY');
    expect(() => videoId('https://www.youtube.com/watch/dQw4w9WgXcQ')).toThrow(SourceError);
  });

  it('writes hours once a video passes the hour', () => {
    const paragraphs = transcriptParagraphs([
      { text: 'start', offset: 0 },
      { text: 'late', offset: 3700.2 },
      { text: 'same minute', offset: 3720 },
    ]);
    expect(paragraphs).toEqual(['[00:00] start', '[1:01:40] late same minute']);
  });
});
