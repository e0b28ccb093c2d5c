/**
 * POST {guru}/text-to-speech/stream/ over real HTTP, with the real eSpeak NG
 * program: an MP3 stream that starts before the text is synthesized, its
 * headers, frames and duration, every error of the spec's table, and the caps
 * on the streams a key and the server have open at once.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
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
import type { SpeechStreamLimits } from '../../src/engine/speech/speech-slots.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { espeakStandIn, type EspeakStandIn } from '../stand-ins/espeak-program.js';
import { readMp3 } from '../../src/core/mp3-frames.js';
import { spokenDurationRange } from '../support/spoken-duration.js';
import { call } from './support.js';

interface Served {
  readonly url: string;
  readonly key: string;
  readonly engine: LocalEngine;
  readonly logLines: string[];
  close(): Promise<void>;
}

async function serve(dataDir: string, speech: Partial<VoiceSettings>, rateLimitPerMinute = 0, speechStreams?: SpeechStreamLimits): Promise<Served> {
  const logLines: string[] = [];
  const logger = createLogger('debug', (line) => logLines.push(line));
  const engine = await LocalEngine.open({ dataDir, logger, speech, processQueue: false, ...(speechStreams === undefined ? {} : { speechStreams }) });
  const backend: Backend = { kind: 'local', assistant: engine, admin: engine };
  const key = (await engine.createGuru({ slug: 'frob' })).api_key;
  const limiter = await openRateLimiter(Config.parse({ dataDir, rateLimitPerMinute }), silentLogger);
  const server: RunningHttpServer = await startHttpServer({ backend, logger, host: '127.0.0.1', port: 0, limiter });
  return {
    url: server.url,
    key,
    engine,
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

/** A speech stream held open by the client: its status and headers, and the body once it is a refusal. */
interface OpenStream {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  /** The JSON body of a refusal (undefined for a stream). */
  readonly json: unknown;
  /** The client leaves: the connection is closed mid-stream. */
  leave(): void;
}

/** Starts a stream and resolves once its status is known; a 200 stream is neither read on nor closed. */
function openStream(url: string, key: string, text: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${PATH}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' } });
    req.on('error', reject);
    req.on('response', (res) => {
      const leave = () => req.destroy();
      if (res.statusCode === 200) return resolve({ status: 200, headers: res.headers, json: undefined, leave });
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(Buffer.concat(chunks).toString('utf8')), leave }));
    });
    req.end(JSON.stringify({ text }));
  });
}

/** The eSpeak NG processes (or stand-ins) this process runs, with their nice values. */
function speechProcesses(): { pid: number; nice: number }[] {
  const found: { pid: number; nice: number }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ').at(-1)?.split(' ') ?? [];
      // After the command name: state, ppid (2nd), …, nice (17th).
      if (Number(fields[1]) !== process.pid) continue;
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('espeak-ng')) continue;
      found.push({ pid: Number(entry), nice: Number(fields[16]) });
    } catch {
      // It ended while being read.
    }
  }
  return found;
}

/** Resolves once this process runs no synthesizer: an event, however long the machine takes. */
async function untilNoSpeechProcesses(): Promise<void> {
  while (speechProcesses().length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('concurrent speech streams', () => {
  let root: string;
  let held: EspeakStandIn;
  let served: Served;
  let otherKey: string;
  let otherGurusKey: string;
  /** The first sentence is spoken at once (the stream starts); the second waits, so the stream stays open until its client leaves. */
  const HELD_TEXT = `A first sentence. Finale that waits. ${sentences(20)}`;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'guru-rest-speech-streams-'));
    held = espeakStandIn(root, { holdWord: 'Finale' });
    served = await serve(join(root, 'data'), { program: held.program }, 0, { perCaller: 2, total: 3 });
    otherKey = (await served.engine.createApiKey('frob')).api_key;
    otherGurusKey = (await served.engine.createGuru({ slug: 'other' })).api_key;
  });

  afterAll(async () => {
    held?.release();
    await served?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('20 streams at once from one key: 2 are read, 18 get the spec\'s 429, at most 2 synthesizers each run, and leaving ends them', async () => {
    const streams = await Promise.all(Array.from({ length: 20 }, () => openStream(served.url, served.key, HELD_TEXT)));
    const open = streams.filter((stream) => stream.status === 200);
    const refused = streams.filter((stream) => stream.status !== 200);
    expect(open).toHaveLength(2);
    expect(refused.map((stream) => stream.status)).toEqual(Array(18).fill(429));
    for (const stream of refused) {
      expect(stream.json).toEqual({ error: 'Rate limit exceeded' });
      expect(Number(stream.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Each open stream holds its waiting sentence, and perhaps the next one, never more.
    const running = speechProcesses();
    expect(running.length).toBeGreaterThanOrEqual(2);
    expect(running.length).toBeLessThanOrEqual(4);
    // Below the thread that serves requests.
    for (const { nice } of running) expect(nice).toBeGreaterThanOrEqual(10);

    for (const stream of open) stream.leave();
    await untilNoSpeechProcesses();
    const again = await openStream(served.url, served.key, HELD_TEXT);
    expect(again.status).toBe(200);
    again.leave();
    await untilNoSpeechProcesses();
  });

  it('caps each key and the server: another key still gets a stream, past the total a 503 says to come back', async () => {
    const first = await openStream(served.url, served.key, HELD_TEXT);
    const second = await openStream(served.url, served.key, HELD_TEXT);
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await call(served.url, 'POST', PATH, { key: served.key, body: { text: 'Hello there.' } });
    expect(third.status).toBe(429);
    expect(third.json).toEqual({ error: 'Rate limit exceeded' });

    // Another key of the same guru has streams of its own, up to the server's total of 3.
    const ofOtherKey = await openStream(served.url, otherKey, HELD_TEXT);
    expect(ofOtherKey.status).toBe(200);
    const busy = await call(served.url, 'POST', '/api/v1/other/text-to-speech/stream/', { key: otherGurusKey, body: { text: 'Hello there.' } });
    expect(busy.status).toBe(503);
    expect((busy.json as { msg: string }).msg).toMatch(/^Speech is busy: 3 texts are being read aloud.*Try again in \d+ seconds\.$/);
    expect(Number(busy.headers['retry-after'])).toBeGreaterThan(0);

    // A client that leaves mid-stream gives its place back, and its synthesizer ends: a held
    // sentence never ends by itself, so the two other streams' are all that may be left.
    first.leave();
    while (speechProcesses().length > 2) await new Promise((resolve) => setTimeout(resolve, 20));
    const afterLeaving = await request(`${served.url}/api/v1/other/text-to-speech/stream/`, {
      method: 'POST',
      headers: { 'x-api-key': otherGurusKey, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Hello there.' }),
    });
    expect(afterLeaving.statusCode).toBe(200);
    expect(readMp3(new Uint8Array(await afterLeaving.body.arrayBuffer())).durationSeconds).toBeGreaterThan(0);

    for (const stream of [second, ofOtherKey]) stream.leave();
    await untilNoSpeechProcesses();
  });
});
