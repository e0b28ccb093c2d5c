/**
 * Speech from an OpenAI-compatible endpoint (OpenAI, LocalAI, Kokoro-FastAPI,
 * openedai-speech and the like): `POST {baseUrl}/audio/speech` with
 * `{model, voice, input, response_format: "mp3"}`, answered by the MP3 bytes,
 * which are passed on as they arrive.
 */
import type { Agent } from 'undici';
import { bytesOf, createAgent } from '../net/agent.js';
import { errorCode } from '../net/http-fetcher.js';
import { excerpt } from './excerpt.js';
import { endpointUrl, postJson } from './endpoint.js';

export interface SpeechProviderSettings {
  /** The API root, e.g. `https://api.openai.com/v1`. */
  readonly baseUrl: string;
  readonly model: string;
  readonly voice: string;
  readonly apiKey?: string;
}

/** The most characters one request takes (OpenAI's limit); longer texts go in several. */
export const PROVIDER_MAX_INPUT_CHARS = 4096;

export class SpeechProviderError extends Error {
  override readonly name = 'SpeechProviderError';
}

export class SpeechProvider {
  readonly #url: URL;
  readonly #settings: SpeechProviderSettings;
  readonly #agent: Agent;

  constructor(settings: SpeechProviderSettings) {
    this.#settings = settings;
    this.#url = endpointUrl(settings.baseUrl, 'audio/speech');
    // The endpoint is the operator's choice (often a model server on this machine).
    this.#agent = createAgent({
      allowPrivateNetwork: true,
      connectTimeoutMs: 10_000,
      headersTimeoutMs: 60_000,
      bodyTimeoutMs: 60_000,
      connectionsPerOrigin: 4,
    });
  }

  /** The MP3 of `input` (at most PROVIDER_MAX_INPUT_CHARS), chunk by chunk; errors of the endpoint are thrown before any. */
  async speak(input: string, signal?: AbortSignal): Promise<AsyncIterable<Uint8Array>> {
    const where = `${this.#url.origin}${this.#url.pathname}`;
    let response;
    try {
      response = await postJson(this.#agent, this.#url, {
        apiKey: this.#settings.apiKey,
        accept: 'audio/mpeg',
        body: { model: this.#settings.model, voice: this.#settings.voice, input, response_format: 'mp3' },
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const reason = errorCode(error) ?? (error instanceof Error ? error.message : String(error));
      throw new SpeechProviderError(`The speech endpoint ${where} is unreachable (${excerpt(reason, this.#settings.apiKey)}): check GURU_TTS_URL`);
    }
    if (response.statusCode !== 200) {
      const text = await response.body.text();
      const detail = excerpt(/"message"\s*:\s*"([^"]{1,300})"/.exec(text)?.[1] ?? text, this.#settings.apiKey);
      throw new SpeechProviderError(`The speech endpoint ${where} answered ${response.statusCode}: ${detail}`);
    }
    return bytesOf(response.body);
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}
