import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openBackend, openBackendOnFirstUse, openRateLimiter } from '../src/compose.js';
import { Config } from '../src/config.js';
import { GuruError } from '../src/core/errors.js';
import { waitForSources } from '../src/core/wait-for-sources.js';
import { createLogger, silentLogger } from '../src/log.js';
import { startEmbeddingsStandIn } from './stand-ins/embeddings.js';
import { startYouTubeStandIn } from './stand-ins/youtube.js';
import { startYouTubeDataApiStandIn } from './stand-ins/youtube-data-api.js';

describe('openRateLimiter', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-compose-'));
  });

  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('limits per end user and key at the configured rate, in the data directory’s state store', async () => {
    const limiter = await openRateLimiter(Config.parse({ dataDir, rateLimitPerMinute: 1 }), silentLogger);
    try {
      const subject = { guru: 'docs', apiKey: 'k', externalUserId: 'alice' };
      expect(await limiter.consume(subject)).toEqual({ allowed: true });
      expect((await limiter.consume(subject)).allowed).toBe(false);
      expect((await limiter.consume({ ...subject, externalUserId: 'bob' })).allowed).toBe(true);
      expect(existsSync(join(dataDir, 'state.sqlite'))).toBe(true);
    } finally {
      await limiter.close();
    }
  });

  it('at 0 lets everything through and opens no store', async () => {
    const limiter = await openRateLimiter(Config.parse({ dataDir, rateLimitPerMinute: 0 }), silentLogger);
    for (let i = 0; i < 50; i++) expect(await limiter.consume({ guru: 'docs', apiKey: 'k' })).toEqual({ allowed: true });
    await limiter.close();
    expect(existsSync(join(dataDir, 'state.sqlite'))).toBe(false);
  });
});

describe('openBackend', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-compose-backend-'));
  });

  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('hands the embeddings endpoint, model and key to the engine, logging neither the key nor URL credentials', async () => {
    const provider = await startEmbeddingsStandIn();
    const lines: string[] = [];
    const apiUrl = new URL(provider.baseUrl);
    apiUrl.username = 'proxy-user';
    apiUrl.password = 'proxy-pass';
    const config = Config.parse({ dataDir, embeddingsUrl: apiUrl.href, embeddingsModel: 'concepts-v1', embeddingsApiKey: 'sk-compose-secret' });
    const backend = await openBackend(config, createLogger('debug', (line) => lines.push(line)));
    try {
      await backend.admin!.createGuru({ slug: 'shop' });
      const created = await backend.assistant.createDataSources('shop', {
        text_sources: [
          { name: 'Workshop', content: 'Our workshop does automobile servicing on weekdays.' },
          { name: 'Bakery', content: 'The bakery sells sourdough loaf every morning.' },
        ],
      });
      await waitForSources(backend.assistant, 'shop', created.map((item) => item.id));
      // Vectors are written after the text is indexed; search until they take part.
      let result = await backend.assistant.semanticSearch('shop', { question: 'car repair' });
      while (result.sources[0]?.title !== 'Workshop') {
        await sleep(20);
        result = await backend.assistant.semanticSearch('shop', { question: 'car repair' });
      }
      expect(result.search_mode).toBe('hybrid');
      expect(provider.embedded.get('concepts-v1')).toContain('car repair');
      expect(provider.server.requests[0]?.headers.authorization).toBe('Bearer sk-compose-secret');
    } finally {
      await backend.close();
      await provider.close();
    }
    const log = lines.join('');
    expect(log).toContain(`embeddings provider url="${provider.baseUrl}" model="concepts-v1"`);
    expect(log).not.toContain('sk-compose-secret');
    expect(log).not.toContain('proxy-pass');
  });

  it('names the language model it hands to the engine in the log, with neither its key nor URL credentials', async () => {
    const lines: string[] = [];
    const config = Config.parse({
      dataDir,
      llmUrl: 'http://proxy-user:proxy-pass@127.0.0.1:11434/v1',
      llmModel: 'llama3.2',
      llmApiKey: 'sk-llm-compose-secret',
    });
    const backend = await openBackend(config, createLogger('debug', (line) => lines.push(line)));
    await backend.close();
    const log = lines.join('');
    expect(log).toContain('language model url="http://127.0.0.1:11434/v1" model="llama3.2"');
    expect(log).not.toContain('sk-llm-compose-secret');
    expect(log).not.toContain('proxy-pass');
  });

  it('names no language model without one', async () => {
    const lines: string[] = [];
    const backend = await openBackend(Config.parse({ dataDir }), createLogger('debug', (line) => lines.push(line)));
    await backend.close();
    expect(lines.join('')).not.toContain('language model');
  });

  it('searches lexically without an embeddings endpoint', async () => {
    const backend = await openBackend(Config.parse({ dataDir }), silentLogger);
    try {
      await backend.admin!.createGuru({ slug: 'shop' });
      const created = await backend.assistant.createDataSources('shop', { text_sources: [{ name: 'Bakery', content: 'The bakery sells sourdough.' }] });
      await waitForSources(backend.assistant, 'shop', created.map((item) => item.id));
      expect(await backend.assistant.semanticSearch('shop', { question: 'sourdough' })).toMatchObject({ search_mode: 'lexical', total_sources: 1 });
    } finally {
      await backend.close();
    }
  });

  it('hands the caps on speech streams to the engine', async () => {
    const backend = await openBackend(Config.parse({ dataDir, speechStreamsPerKey: '1', speechStreams: '1' }), silentLogger);
    try {
      await backend.admin!.createGuru({ slug: 'shop' });
      const open = await backend.assistant.textToSpeech('shop', { text: 'One. Two. Three.' }, { caller: 'key:a' });
      const refusal = (caller: string) => backend.assistant.textToSpeech('shop', { text: 'Hello.' }, { caller }).then(() => 200, (error: GuruError) => error.status);
      expect(await refusal('key:a')).toBe(429);
      expect(await refusal('key:b')).toBe(503);
      await open[Symbol.asyncIterator]().return?.();
    } finally {
      await backend.close();
    }
  });

  it('sends YouTube requests to the configured URL', async () => {
    const youtube = await startYouTubeStandIn([
      { id: 'dQw4w9WgXcQ', title: 'Calibrating the zorbix coil', captions: [{ start: 0, duration: 4, text: 'Turn the coil a quarter turn.' }] },
    ]);
    const backend = await openBackend(Config.parse({ dataDir, youtubeUrl: youtube.baseUrl, allowPrivateNetwork: true }), silentLogger);
    try {
      await backend.admin!.createGuru({ slug: 'videos' });
      const created = await backend.assistant.createDataSources('videos', { youtube_urls: ['https://youtu.be/dQw4w9WgXcQ'] });
      const [outcome] = await waitForSources(backend.assistant, 'videos', created.map((item) => item.id));
      expect(outcome?.source).toMatchObject({ type: 'YOUTUBE', status: 'SUCCESS', title: 'Calibrating the zorbix coil' });
      expect(youtube.server.requests.some((request) => request.path.startsWith('/watch?v=dQw4w9WgXcQ'))).toBe(true);
    } finally {
      await backend.close();
      await youtube.close();
    }
  });
  it('imports channels through the configured YouTube Data API with the configured key, logging neither', async () => {
    const api = await startYouTubeDataApiStandIn({ channels: [{ id: 'UCcompose0000000000000AB', handle: 'ComposeDemo', videoIds: ['vid00000001', 'vid00000002'] }] });
    const lines: string[] = [];
    const config = Config.parse({ dataDir, youtubeApiKey: api.apiKey, youtubeApiUrl: api.baseUrl, allowPrivateNetwork: true });
    const backend = await openBackend(config, createLogger('debug', (line) => lines.push(line)));
    try {
      await expect(backend.assistant.importChannel({ url: 'https://www.youtube.com/@ComposeDemo' })).resolves.toEqual({
        channel_identifier: 'ComposeDemo',
        identifier_type: 'username',
        video_count: 2,
        videos: ['https://www.youtube.com/watch?v=vid00000001', 'https://www.youtube.com/watch?v=vid00000002'],
      });
      expect(api.server.requests.length).toBeGreaterThan(0);
      expect(api.server.requests.every((request) => request.url.searchParams.get('key') === api.apiKey)).toBe(true);
    } finally {
      await backend.close();
      await api.close();
    }
    expect(lines.join('')).not.toContain(api.apiKey);
  });

  it('answers channel import without a YouTube Data API key with the engine’s error, asking Google nothing', async () => {
    const api = await startYouTubeDataApiStandIn({ channels: [{ id: 'UCcompose0000000000000AB', videoIds: ['vid00000001'] }] });
    const backend = await openBackend(Config.parse({ dataDir, youtubeApiUrl: api.baseUrl, allowPrivateNetwork: true }), silentLogger);
    try {
      await expect(backend.assistant.importChannel({ url: 'https://www.youtube.com/channel/UCcompose0000000000000AB' })).rejects.toMatchObject({
        status: 503,
        field: 'msg',
        message: expect.stringMatching(/^No YouTube Data API key is configured; set GURU_YOUTUBE_API_KEY/),
      });
      expect(api.server.requests).toEqual([]);
    } finally {
      await backend.close();
      await api.close();
    }
  });
});

describe('openBackendOnFirstUse', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'guru-compose-first-use-'));
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('touches the data directory only when a call needs the backend, then serves every call from one engine', async () => {
    const dataDir = join(dir, 'data');
    const backend = openBackendOnFirstUse(Config.parse({ dataDir, defaultGuru: 'docs' }), silentLogger);
    try {
      expect(backend).toMatchObject({ kind: 'local', defaultGuru: 'docs' });
      expect(backend.admin).toBeDefined();
      // Awaiting a part is no call: it opens nothing.
      expect(await backend.assistant).toBe(backend.assistant);
      expect(existsSync(dataDir)).toBe(false);

      await backend.admin!.createGuru({ slug: 'docs' });
      expect(existsSync(join(dataDir, 'guru.sqlite'))).toBe(true);
      const created = await backend.assistant.createDataSources('docs', { text_sources: [{ name: 'Bakery', content: 'The bakery sells sourdough.' }] });
      await waitForSources(backend.assistant, 'docs', created.map((item) => item.id));
      expect((await backend.admin!.listGurus()).map((guru) => guru.slug)).toEqual(['docs']);
      expect(await backend.assistant.semanticSearch('docs', { question: 'sourdough' })).toMatchObject({ total_sources: 1 });
    } finally {
      await backend.close();
    }
  });

  it('has no guru administration for a remote backend, and closing one never opened opens nothing', async () => {
    const backend = openBackendOnFirstUse(Config.parse({ dataDir: dir, backend: 'remote', apiKey: 'k', apiUrl: 'http://127.0.0.1:9' }), silentLogger);
    expect(backend.kind).toBe('remote');
    expect(backend.admin).toBeUndefined();
    await backend.close();
  });

  it('answers calls with the reason when the data directory cannot be created, logs it, and tries again on the next call', async () => {
    const blocker = join(dir, 'not-a-directory');
    writeFileSync(blocker, '');
    const dataDir = join(blocker, 'data');
    const lines: string[] = [];
    const backend = openBackendOnFirstUse(Config.parse({ dataDir }), createLogger('error', (line) => lines.push(line)));
    try {
      const failure = await backend.admin!.listGurus().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(GuruError);
      expect((failure as GuruError).message).toMatch(/^The knowledge base could not be opened: .*ENOTDIR/);
      expect((failure as GuruError).hint).toContain(`Its data directory is ${dataDir}`);
      await expect(backend.open()).rejects.toThrow(/could not be opened/);
      expect(lines.filter((line) => line.includes('backend could not be opened'))).toHaveLength(2);

      rmSync(blocker);
      mkdirSync(blocker);
      expect(await backend.admin!.listGurus()).toEqual([]);
    } finally {
      await backend.close();
    }
  });
});
