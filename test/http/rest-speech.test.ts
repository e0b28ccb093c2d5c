/**
 * POST {guru}/text-to-speech/stream/ over real HTTP, with the real eSpeak NG
 * program: an MP3 stream that starts before the text is synthesized, its
 * headers, frames and duration, and every error of the spec's table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRateLimiter } from '../../src/compose.js';
import { Config } from '../../src/config.js';
import type { Backend } from '../../src/core/assistant.js';
import { MAX_SPEECH_CHARS } from '../../src/core/schemas.js';
import { LocalEngine } from '../../src/engine/local-engine.js';
import type { VoiceSettings } from '../../src/engine/speech/espeak.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { espeakStandIn, type EspeakStandIn } from '../stand-ins/espeak-program.js';
import { readMp3 } from '../../src/core/mp3-frames.js';
import { spokenDurationRange } from '../support/spoken-duration.js';
import { call } from './support.js';

interface Served {
  readonly url: string;
  readonly key: string;
  readonly logLines: string[];
  close(): Promise<void>;
}

async function serve(dataDir: string, speech: Partial<VoiceSettings>, rateLimitPerMinute = 0): Promise<Served> {
  const logLines: string[] = [];
  const logger = createLogger('debug', (line) => logLines.push(line));
  const engine = LocalEngine.open({ dataDir, logger, speech, processQueue: false });
  const backend: Backend = { kind: 'local', assistant: engine, admin: engine };
  const key = (await engine.createGuru({ slug: 'frob' })).api_key;
  const limiter = await openRateLimiter(Config.parse({ dataDir, rateLimitPerMinute }), silentLogger);
  const server: RunningHttpServer = await startHttpServer({ backend, logger, host: '127.0.0.1', port: 0, limiter });
  return {
    url: server.url,
    key,
    logLines,
    close: async () => {
      await server.close();
      await limiter.close();
      await engine.close();
    },
  };
}

const PATH = '/api/v1/frob/text-to-speech/stream/';
const sentences = (count: number, last = 'That is all.') =>
  [...Array.from({ length: count - 1 }, (_, i) => `Sentence number ${i + 1} is read aloud here.`), last].join(' ');

describe('POST {guru}/text-to-speech/stream/', () => {
  let root: string;
  let served: Served;
  let held: EspeakStandIn;
  let heldServer: Served;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'guru-rest-speech-'));
    served = await serve(join(root, 'plain'), {});
    held = espeakStandIn(root, { holdWord: 'Finale' });
    heldServer = await serve(join(root, 'held'), { program: held.program });
  });

  afterAll(async () => {
    held?.release();
    await served?.close();
    await heldServer?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('streams MP3 with the spec headers: valid Layer III frames, as long as the words take to say', async () => {
    const text = 'Hello! This is your local knowledge assistant, speaking without any network connection.';
    const reply = await request(`${served.url}${PATH}`, {
      method: 'POST',
      headers: { 'x-api-key': served.key, 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-type']).toBe('audio/mpeg');
    expect(reply.headers['cache-control']).toBe('no-cache');
    expect(reply.headers['x-accel-buffering']).toBe('no');
    const mp3 = readMp3(new Uint8Array(await reply.body.arrayBuffer()));
    expect(mp3.sampleRate).toBe(22050);
    expect([...mp3.bitratesKbps]).toEqual([64]);
    const [shortest, longest] = spokenDurationRange(13);
    expect(mp3.durationSeconds).toBeGreaterThan(shortest);
    expect(mp3.durationSeconds).toBeLessThan(longest);
  });

  it('sends the first audio while the last sentence is still being synthesized', async () => {
    const reply = await request(`${heldServer.url}${PATH}`, {
      method: 'POST',
      headers: { 'x-api-key': heldServer.key, 'content-type': 'application/json' },
      body: JSON.stringify({ text: sentences(12, 'Finale of the text.') }),
    });
    expect(reply.statusCode).toBe(200);
    const chunks: Uint8Array[] = [];
    // The sentence with "Finale" cannot finish before release(): receiving audio before it proves streaming.
    for await (const chunk of reply.body) {
      chunks.push(chunk as Buffer);
      held.release();
    }
    expect(chunks.length).toBeGreaterThan(1);
    const mp3 = readMp3(Buffer.concat(chunks));
    expect(mp3.durationSeconds).toBeGreaterThan(spokenDurationRange(12 * 6)[0]);
  });

  it('a longer text gives longer audio', async () => {
    const durationOf = async (text: string) => {
      const reply = await request(`${served.url}${PATH}`, {
        method: 'POST',
        headers: { 'x-api-key': served.key, 'content-type': 'application/json' },
        body: JSON.stringify({ text }),
      });
      return readMp3(new Uint8Array(await reply.body.arrayBuffer())).durationSeconds;
    };
    const short = await durationOf(sentences(1));
    const long = await durationOf(sentences(6));
    expect(long).toBeGreaterThan(short * 3);
  });

  it('answers the spec errors: no text, a bad key, too long a text', async () => {
    for (const body of [{}, { text: '' }]) {
      const reply = await call(served.url, 'POST', PATH, { key: served.key, body });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ msg: 'No text provided' });
    }
    const noWords = await call(served.url, 'POST', PATH, { key: served.key, body: { text: '--- * ---' } });
    expect(noWords.status).toBe(400);
    expect(noWords.json).toEqual({ msg: 'No text provided' });
    const badKey = await call(served.url, 'POST', PATH, { key: 'nope', body: { text: 'Hello.' } });
    expect(badKey.status).toBe(401);
    expect(badKey.json).toEqual({ error: 'Invalid API key' });
    const tooLong = await call(served.url, 'POST', PATH, { key: served.key, body: { text: 'a'.repeat(MAX_SPEECH_CHARS + 1) } });
    expect(tooLong.status).toBe(400);
    expect(JSON.stringify(tooLong.json)).toContain(String(MAX_SPEECH_CHARS));
    for (const rawBody of ['{"text": 42}', '{"text": null}', '["Hello."]', '{"text": "Hello.', 'not json']) {
      const reply = await call(served.url, 'POST', PATH, { key: served.key, rawBody, headers: { 'content-type': 'application/json' } });
      expect(reply.status, rawBody).toBe(400);
      expect(typeof (reply.json as { msg?: unknown }).msg, rawBody).toBe('string');
    }
  });

  it('answers "Rate limit exceeded" past the limit', async () => {
    const limited = await serve(join(root, 'limited'), {}, 1);
    try {
      const first = await call(limited.url, 'POST', PATH, { key: limited.key, body: { text: 'Hi.' } });
      expect(first.status).toBe(200);
      const second = await call(limited.url, 'POST', PATH, { key: limited.key, body: { text: 'Hi.' } });
      expect(second.status).toBe(429);
      expect(second.json).toEqual({ error: 'Rate limit exceeded' });
    } finally {
      await limited.close();
    }
  });

  it('answers "Error generating speech stream" when the synthesizer is not installed, and logs how to install it', async () => {
    const missing = await serve(join(root, 'missing'), { program: join(root, 'no-such-espeak-ng') });
    try {
      const reply = await call(missing.url, 'POST', PATH, { key: missing.key, body: { text: 'Hello there.' } });
      expect(reply.status).toBe(500);
      expect(reply.json).toEqual({ msg: 'Error generating speech stream' });
      expect(missing.logLines.join('')).toMatch(/speech synthesis failed.*install the espeak-ng/i);
    } finally {
      await missing.close();
    }
  });

  it('ends the stream early, and logs why, when synthesis fails after the first bytes', async () => {
    const broken = espeakStandIn(join(root), { failWord: 'Breakdown' });
    const failing = await serve(join(root, 'failing'), { program: broken.program });
    try {
      const reply = await request(`${failing.url}${PATH}`, {
        method: 'POST',
        headers: { 'x-api-key': failing.key, 'content-type': 'application/json' },
        body: JSON.stringify({ text: sentences(6, 'Breakdown here.') }),
      });
      expect(reply.statusCode).toBe(200);
      const received: Uint8Array[] = [];
      await expect(
        (async () => {
          for await (const chunk of reply.body) received.push(chunk as Buffer);
        })(),
      ).rejects.toThrow();
      expect(received.length).toBeGreaterThan(0);
      expect(failing.logLines.join('')).toMatch(/speech stream ended early.*synthesis broke/);
    } finally {
      await failing.close();
    }
  });
});
