/** The speech provider's refusals: what they say, and that they never carry the key. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpeechProvider } from '../../src/providers/speech.js';
import { startSpeechStandIn, type SpeechStandIn } from '../stand-ins/openai-speech.js';

const KEY = 'sk-secret-0123456789';

describe('SpeechProvider errors', () => {
  let standIn: SpeechStandIn;
  let provider: SpeechProvider;

  beforeAll(async () => {
    standIn = await startSpeechStandIn();
    provider = new SpeechProvider({ baseUrl: standIn.baseUrl, model: 'tts-1', voice: 'alloy', apiKey: KEY });
  });

  afterAll(async () => {
    await provider?.close();
    await standIn?.close();
  });

  it('names the status and the server’s message, with the key masked when the server echoes it', async () => {
    standIn.server.failNext('/v1/audio/speech', { status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } });
    const error = await provider.speak('Hello.').then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(error?.message).toMatch(/answered 401: Incorrect API key provided: \*\*\*/);
    expect(error?.message).not.toContain(KEY);
  });

  it('says an endpoint that cannot be reached is unreachable, by its error code', async () => {
    const closed = new SpeechProvider({ baseUrl: 'http://127.0.0.1:9/v1', model: 'tts-1', voice: 'alloy', apiKey: KEY });
    try {
      await expect(closed.speak('Hello.')).rejects.toThrow(/unreachable \(ECONNREFUSED\): check GURU_TTS_URL/);
    } finally {
      await closed.close();
    }
  });
});
