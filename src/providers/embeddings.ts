/**
 * Text embeddings from an OpenAI-compatible endpoint (OpenAI, Ollama, vLLM,
 * LM Studio and the like): `POST {baseUrl}/embeddings` with `{model, input}`,
 * answered by `{data: [{index, embedding}]}`. Vectors come back unit-length,
 * so cosine distance and dot product rank alike.
 */
import type { Agent } from 'undici';
import { createAgent } from '../net/agent.js';
import { endpointUrl, postJson } from './endpoint.js';

export interface EmbeddingsSettings {
  /** The API root, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
  /** Texts per request. */
  readonly batchSize?: number;
  readonly timeoutMs?: number;
}

export class EmbeddingsError extends Error {
  override readonly name = 'EmbeddingsError';
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, retryable: boolean, retryAfterMs?: number) {
    super(message);
    this.retryable = retryable;
    this.retryAfterMs = retryAfterMs;
  }
}

interface EmbeddingsResponse {
  readonly data: readonly { readonly index: number; readonly embedding: readonly number[] }[];
}

const isEmbeddingsResponse = (value: unknown): value is EmbeddingsResponse =>
  typeof value === 'object' &&
  value !== null &&
  Array.isArray((value as { data?: unknown }).data) &&
  (value as EmbeddingsResponse).data.every((item) => typeof item?.index === 'number' && Array.isArray(item.embedding));

function unitLength(values: readonly number[]): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] ?? 0) / norm;
  return vector;
}

export class EmbeddingsProvider {
  readonly model: string;
  readonly #url: URL;
  readonly #apiKey: string | undefined;
  readonly #batchSize: number;
  readonly #agent: Agent;

  constructor(settings: EmbeddingsSettings) {
    this.model = settings.model;
    this.#url = endpointUrl(settings.baseUrl, 'embeddings');
    this.#apiKey = settings.apiKey;
    this.#batchSize = settings.batchSize ?? 64;
    const timeout = settings.timeoutMs ?? 60_000;
    // The endpoint is the operator's choice (often a model server on this machine).
    this.#agent = createAgent({
      allowPrivateNetwork: true,
      connectTimeoutMs: 10_000,
      headersTimeoutMs: timeout,
      bodyTimeoutMs: timeout,
      connectionsPerOrigin: 4,
      maxResponseBytes: 256 * 1024 * 1024,
    });
  }

  /** One unit-length vector per text, in order. */
  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.#batchSize) {
      vectors.push(...(await this.#embedBatch(texts.slice(start, start + this.#batchSize), signal)));
    }
    return vectors;
  }

  close(): Promise<void> {
    return this.#agent.close();
  }

  async #embedBatch(input: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const where = `${this.#url.origin}${this.#url.pathname}`;
    let response;
    try {
      response = await postJson(this.#agent, this.#url, {
        apiKey: this.#apiKey,
        accept: 'application/json',
        body: { model: this.model, input, encoding_format: 'float' },
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new EmbeddingsError(`The embeddings endpoint ${where} is unreachable: ${(error as Error).message}`, true);
    }
    const text = await response.body.text();
    if (response.statusCode !== 200) {
      const retryAfter = Number(response.headers['retry-after']);
      const detail = /"message"\s*:\s*"([^"]{1,300})"/.exec(text)?.[1] ?? text.slice(0, 300);
      throw new EmbeddingsError(
        `The embeddings endpoint ${where} answered ${response.statusCode}: ${detail}`,
        response.statusCode === 429 || response.statusCode >= 500,
        Number.isFinite(retryAfter) ? retryAfter * 1000 : undefined,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new EmbeddingsError(`The embeddings endpoint ${where} answered with something other than JSON.`, false);
    }
    if (!isEmbeddingsResponse(parsed) || parsed.data.length !== input.length) {
      throw new EmbeddingsError(`The embeddings endpoint ${where} answered without one embedding per input.`, false);
    }
    const vectors = new Array<Float32Array>(input.length);
    for (const item of parsed.data) vectors[item.index] = unitLength(item.embedding);
    return vectors;
  }
}
