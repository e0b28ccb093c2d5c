/**
 * POST {guru}/text-to-speech-v2/stream/ over real HTTP, against a stand-in of
 * an OpenAI-compatible /audio/speech endpoint: disabled until the operator
 * enables it per guru, then the provider's MP3 streamed through, with code
 * described for speech and long texts sent in several requests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openBackend, openRateLimiter, type OpenedBackend } from '../../src/compose.js';
import { Config } from '../../src/config.js';
import { readMp3 } from '../../src/core/mp3-frames.js';
import { MAX_SPEECH_CHARS } from '../../src/core/schemas.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { silentLogger } from '../../src/log.js';
import { startSpeechStandIn, type SpeechStandIn } from '../stand-ins/openai-speech.js';
import { call } from './support.js';

const PATH = '/api/v1/frob/text-to-speech-v2/stream/';

describe('POST {guru}/text-to-speech-v2/stream/', () => {
  let dataDir: string;
  let provider: SpeechStandIn;
  let backend: OpenedBackend;
  let server: RunningHttpServer;
  let key: string;

  const speak = (text: string) =>
    request(`${server.url}${PATH}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ text }) });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-rest-speech-v2-'));
    provider = await startSpeechStandIn();
    const config = Config.parse({ dataDir, rateLimitPerMinute: 0, ttsUrl: provider.baseUrl, ttsModel: 'tts-1', ttsVoice: 'nova', ttsApiKey: 'sk-test' });
    backend = await openBackend(config, silentLogger, { processing: false });
    key = (await backend.admin!.createGuru({ slug: 'frob' })).api_key;
    server = await startHttpServer({ backend, logger: silentLogger, host: '127.0.0.1', port: 0, limiter: await openRateLimiter(config, silentLogger) });
  });

  afterAll(async () => {
    await server?.close();
    await backend?.close();
    await provider?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    provider.received.length = 0;
  });

  it('answers "Text-to-speech is not enabled for this guru type" until the operator enables it, and again after', async () => {
    const before = await call(server.url, 'POST', PATH, { key, body: { text: 'Hello.' } });
    expect(before.status).toBe(403);
    expect(before.json).toEqual({ msg: 'Text-to-speech is not enabled for this guru type' });
    expect(provider.received).toHaveLength(0);
    await backend.admin!.updateGuruSettings('frob', { speech_provider: true });
    expect((await call(server.url, 'POST', PATH, { key, body: { text: 'Hello.' } })).status).toBe(200);
    await backend.admin!.updateGuruSettings('frob', { speech_provider: false });
    expect((await call(server.url, 'POST', PATH, { key, body: { text: 'Hello.' } })).status).toBe(403);
  });

  it('refuses malformed and oversized bodies with 400 before the provider is asked', async () => {
    await backend.admin!.updateGuruSettings('frob', { speech_provider: true });
    for (const rawBody of ['{"text": 42}', '{}', '{"text": "Hello.', JSON.stringify({ text: 'a'.repeat(MAX_SPEECH_CHARS + 1) })]) {
      const reply = await call(server.url, 'POST', PATH, { key, rawBody, headers: { 'content-type': 'application/json' } });
      expect(reply.status, rawBody.slice(0, 40)).toBe(400);
    }
    expect(provider.received).toHaveLength(0);
  });

  it("streams the provider's MP3 through, with the spec headers, code described for speech", async () => {
    await backend.admin!.updateGuruSettings('frob', { speech_provider: true });
    const reply = await speak('## Setup\n\nRun this:\n```python\nprint("hi")\n```\nthen call `frob.run()`.');
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-type']).toBe('audio/mpeg');
    expect(reply.headers['cache-control']).toBe('no-cache');
    expect(reply.headers['x-accel-buffering']).toBe('no');
    const mp3 = readMp3(new Uint8Array(await reply.body.arrayBuffer()));
    expect(mp3.frames).toBeGreaterThan(0);
    expect(provider.received).toEqual([
      {
        body: { model: 'tts-1', voice: 'nova', input: 'Setup. Run this: Here is a code example in Python. then call frob.run().', response_format: 'mp3' },
        token: 'sk-test',
      },
    ]);
  });

  it('sends a long text in requests of at most 4096 characters, one MP3 stream back', async () => {
    await backend.admin!.updateGuruSettings('frob', { speech_provider: true });
    const text = Array.from({ length: 250 }, (_, i) => `Sentence number ${i + 1} is read aloud here.`).join(' ');
    const reply = await speak(text);
    const mp3 = readMp3(new Uint8Array(await reply.body.arrayBuffer()));
    expect(provider.received.length).toBeGreaterThan(2);
    expect(provider.received.every(({ body }) => body.input.length <= 4096)).toBe(true);
    expect(provider.received.map(({ body }) => body.input).join(' ')).toBe(text);
    expect(mp3.frames).toBe(text.split(' ').length * 15);
  });

  it('answers "Error generating speech stream" when the provider fails before any audio', async () => {
    await backend.admin!.updateGuruSettings('frob', { speech_provider: true });
    provider.server.failNext('/v1/audio/speech', { status: 500, body: { error: { message: 'model crashed' } } });
    const reply = await call(server.url, 'POST', PATH, { key, body: { text: 'Hello.' } });
    expect(reply.status).toBe(500);
    expect(reply.json).toEqual({ msg: 'Error generating speech stream' });
  });
});
