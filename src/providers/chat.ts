/**
 * A chat language model behind an OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio,
 * llama.cpp's server and other vendors' compatible APIs): `POST {baseUrl}/chat/completions`,
 * streamed as server-sent events or answered in one JSON body.
 *
 * Failures before the first text (429, 5xx, connections refused or cut, errors sent in the
 * stream) are retried, honouring Retry-After; once text has been handed out nothing is retried,
 * so no reader ever sees text twice. Every wait is bounded: for the first text, and then for each
 * further piece. Every failure is a ChatError naming the endpoint and what to check; the caller's
 * own abort passes through as its signal's reason.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent, Dispatcher } from 'undici';
import { createAgent } from '../net/agent.js';
import { errorCode } from '../net/http-fetcher.js';
import { ChatError, ChatErrors } from './chat-errors.js';
import { errorDetail, StreamedAnswer, wholeAnswer, type ChatCompletion } from './chat-wire.js';
import { ServerSentEventParser } from './sse.js';
import { endpointUrl, postJson } from './endpoint.js';

export { ChatError, type ChatFailure } from './chat-errors.js';
export type { ChatCompletion, TokenUsage } from './chat-wire.js';

export interface ChatSettings {
  /** The API root, ending in /v1: e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  readonly baseUrl: string;
  readonly model: string;
  /** Sent as a bearer token; never logged, never part of an error message. */
  readonly apiKey?: string;
  /**
   * The model reads images (GURU_LLM_IMAGES), so the engine puts a question's images in the answer
   * call as `image_url` parts. Off by default: many OpenAI-compatible models take text only and
   * refuse such a request. The provider itself sends whatever messages it is given.
   */
  readonly readsImages?: boolean;
  /** Default 10 s. */
  readonly connectTimeoutMs?: number;
  /** Longest wait from sending a request to the first text (a server may have to load the model). Default 120 s. */
  readonly responseTimeoutMs?: number;
  /** Longest silence once text arrives, and while a whole answer's body arrives. Default 30 s. */
  readonly stallTimeoutMs?: number;
  /** Attempts per call, the first included. Default 3. */
  readonly maxAttempts?: number;
  /** Pause before the first retry when the server names none; each further one doubles. Default 1 s. */
  readonly retryBackoffMs?: number;
  /** Longest pause before a retry; a Retry-After asking for longer ends the attempts. Default 20 s. */
  readonly maxRetryDelayMs?: number;
}

/** A piece of a user message in the OpenAI wire format: text, or an image given by URL (here always a data URL). */
export type ContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string } };

/** Only a user message may carry parts (images); every other message, and most user messages, are plain text. */
export type ChatMessage =
  | { readonly role: 'system' | 'assistant'; readonly content: string }
  | { readonly role: 'user'; readonly content: string | readonly ContentPart[] };

/** Whether any message carries an image. */
export const carriesImages = (messages: readonly ChatMessage[]): boolean =>
  messages.some((message) => typeof message.content !== 'string' && message.content.some((part) => part.type === 'image_url'));

export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly temperature?: number;
  /** Sent as `max_tokens`, the name every compatible server knows. */
  readonly maxTokens?: number;
  readonly signal?: AbortSignal;
}

export interface CompletionRequest extends ChatRequest {
  /** `json`: ask for a JSON object (`response_format: {type: "json_object"}`); the messages should describe it. */
  readonly responseFormat?: 'text' | 'json';
}

/**
 * A streamed answer: iterate it (once) for the text as it arrives. `completion` settles when the
 * stream ends: with the whole text, finish reason and usage, or with the error that ended the
 * iteration (a ChatError of failure `stopped` when the reader left early).
 */
export class ChatStream implements AsyncIterable<string> {
  readonly completion: Promise<ChatCompletion>;
  readonly #source: AsyncGenerator<string, ChatCompletion>;
  readonly #stopped: () => ChatError;
  #resolve: (completion: ChatCompletion) => void = () => {};
  #reject: (error: unknown) => void = () => {};
  #read = false;

  constructor(source: AsyncGenerator<string, ChatCompletion>, stopped: () => ChatError) {
    this.#source = source;
    this.#stopped = stopped;
    this.completion = new Promise<ChatCompletion>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // A reader that only iterates sees the failure there; `completion` must not report it again as unhandled.
    this.completion.catch(() => {});
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<string, void> {
    if (this.#read) throw new Error('A chat stream can be read only once');
    this.#read = true;
    try {
      this.#resolve(yield* this.#source);
    } catch (error) {
      this.#reject(error);
      throw error;
    } finally {
      // Without effect once settled; otherwise the reader left early, and the source has ended its request.
      this.#reject(this.#stopped());
    }
  }
}

/** What the answer pipeline needs of a chat model: a streamed answer, or a whole one. */
export interface ChatModel {
  stream(request: ChatRequest): ChatStream;
  complete(request: CompletionRequest): Promise<ChatCompletion>;
}

type Wait = 'response' | 'stall';

/**
 * The waits of one exchange with the model. The response wait is one budget from the request to
 * the first text (keep-alive comments do not extend it); a stall wait is per piece. When a wait
 * runs out the exchange is aborted and the wait fails, even if the connection does not notice.
 */
class Exchange {
  readonly signal: AbortSignal;
  /** Set once the server answered with a status. */
  responded = false;
  /** Set once text was handed to the reader: from then on nothing is retried. */
  textSent = false;
  readonly #controller = new AbortController();
  readonly #started = performance.now();
  #expired: Wait | undefined;

  constructor(caller: AbortSignal | undefined) {
    this.signal = caller === undefined ? this.#controller.signal : AbortSignal.any([caller, this.#controller.signal]);
  }

  get expired(): Wait | undefined {
    return this.#expired;
  }

  /** `step`, within what is left of `responseMs` since the exchange began. */
  beforeResponse<T>(responseMs: number, step: () => Promise<T>): Promise<T> {
    return this.#within('response', Math.max(0, responseMs - (performance.now() - this.#started)), step);
  }

  /** `step`, within `stallMs`. */
  beforeStall<T>(stallMs: number, step: () => Promise<T>): Promise<T> {
    return this.#within('stall', stallMs, step);
  }

  /** Ends the exchange, and its connection if the response is not complete. */
  close(): void {
    this.#controller.abort();
  }

  async #within<T>(wait: Wait, ms: number, step: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const expiry = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.#expired = wait;
        this.#controller.abort();
        reject(new Error(`the ${wait} wait of ${ms} ms ran out`));
      }, ms);
    });
    try {
      return await Promise.race([step(), expiry]);
    } finally {
      clearTimeout(timer);
    }
  }
}

const DEFAULTS = {
  connectTimeoutMs: 10_000,
  responseTimeoutMs: 120_000,
  stallTimeoutMs: 30_000,
  maxAttempts: 3,
  retryBackoffMs: 1_000,
  maxRetryDelayMs: 20_000,
} as const;

/** A chat-completions request body. */
type Payload = { readonly messages: readonly ChatMessage[]; readonly [field: string]: unknown };

type Limits = { readonly [K in keyof typeof DEFAULTS]: number };

export class ChatProvider implements ChatModel {
  readonly model: string;
  /** The API root as messages show it: without credentials or query. */
  readonly endpoint: string;
  readonly #url: URL;
  readonly #apiKey: string | undefined;
  readonly #limits: Limits;
  readonly #errors: ChatErrors;
  readonly #agent: Agent;

  constructor(settings: ChatSettings) {
    this.model = settings.model;
    const root = new URL(settings.baseUrl);
    this.endpoint = `${root.origin}${root.pathname.replace(/\/+$/, '')}`;
    this.#url = endpointUrl(settings.baseUrl, 'chat/completions');
    this.#apiKey = settings.apiKey;
    this.#limits = {
      connectTimeoutMs: settings.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
      responseTimeoutMs: settings.responseTimeoutMs ?? DEFAULTS.responseTimeoutMs,
      stallTimeoutMs: settings.stallTimeoutMs ?? DEFAULTS.stallTimeoutMs,
      maxAttempts: Math.max(1, settings.maxAttempts ?? DEFAULTS.maxAttempts),
      retryBackoffMs: settings.retryBackoffMs ?? DEFAULTS.retryBackoffMs,
      maxRetryDelayMs: settings.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs,
    };
    this.#errors = new ChatErrors(this.endpoint, this.model, this.#apiKey);
    // The endpoint is the operator's choice (often a model server on this machine). Each
    // Exchange bounds the headers and the body itself; undici's timers would also count the time
    // a slow reader takes over the stream, so they are off (0).
    this.#agent = createAgent({
      allowPrivateNetwork: true,
      connectTimeoutMs: this.#limits.connectTimeoutMs,
      headersTimeoutMs: 0,
      bodyTimeoutMs: 0,
      connectionsPerOrigin: 8,
      maxResponseBytes: 32 * 1024 * 1024,
    });
  }

  /** Streams the answer to `request`: text as it arrives, then the completion. Nothing is sent before the first read. */
  stream(request: ChatRequest): ChatStream {
    return new ChatStream(this.#streamed(request), () => this.#errors.stopped());
  }

  /** The whole answer to `request` in one response (for grading and rewriting). */
  async complete(request: CompletionRequest): Promise<ChatCompletion> {
    const payload = {
      ...this.#payload(request),
      stream: false,
      ...(request.responseFormat === 'json' ? { response_format: { type: 'json_object' } } : {}),
    };
    for (let attempt = 1; ; attempt++) {
      const exchange = new Exchange(request.signal);
      try {
        const response = await this.#open(payload, 'application/json', exchange);
        const body = await exchange.beforeStall(this.#limits.stallTimeoutMs, () => response.body.text());
        return wholeAnswer(body, this.#errors);
      } catch (error) {
        await this.#beforeRetry(this.#failure(error, request.signal, exchange), attempt, exchange, request.signal);
      } finally {
        exchange.close();
      }
    }
  }

  close(): Promise<void> {
    return this.#agent.close();
  }

  #payload(request: ChatRequest): Payload {
    return {
      model: this.model,
      messages: request.messages,
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
    };
  }

  async *#streamed(request: ChatRequest): AsyncGenerator<string, ChatCompletion> {
    const payload = { ...this.#payload(request), stream: true, stream_options: { include_usage: true } };
    for (let attempt = 1; ; attempt++) {
      const exchange = new Exchange(request.signal);
      try {
        return yield* this.#streamOnce(payload, exchange);
      } catch (error) {
        await this.#beforeRetry(this.#failure(error, request.signal, exchange), attempt, exchange, request.signal);
      } finally {
        exchange.close();
      }
    }
  }

  async *#streamOnce(payload: Payload, exchange: Exchange): AsyncGenerator<string, ChatCompletion> {
    const response = await this.#open(payload, 'text/event-stream', exchange);
    if (/^application\/json/i.test(String(response.headers['content-type'] ?? ''))) {
      // A server that ignores `stream: true` answers in one body: its text is then one piece.
      const completion = wholeAnswer(await exchange.beforeStall(this.#limits.stallTimeoutMs, () => response.body.text()), this.#errors);
      if (completion.text) {
        exchange.textSent = true;
        yield completion.text;
      }
      return completion;
    }
    const chunks = response.body[Symbol.asyncIterator]() as AsyncIterator<Buffer, undefined>;
    const parser = new ServerSentEventParser();
    const answer = new StreamedAnswer(this.#errors);
    for (;;) {
      const next = () => chunks.next();
      const step = exchange.textSent
        ? await exchange.beforeStall(this.#limits.stallTimeoutMs, next)
        : await exchange.beforeResponse(this.#limits.responseTimeoutMs, next);
      for (const event of step.done ? parser.end() : parser.push(step.value)) {
        const text = answer.take(event);
        if (text) {
          exchange.textSent = true;
          yield text;
        }
        if (answer.done) return answer.completion();
      }
      if (step.done) return answer.completion();
    }
  }

  /** Sends the request; resolves with a 2xx response, fails with a ChatError naming any other status. */
  async #open(payload: Payload, accept: string, exchange: Exchange): Promise<Dispatcher.ResponseData> {
    const response = await exchange.beforeResponse(this.#limits.responseTimeoutMs, () =>
      postJson(this.#agent, this.#url, { apiKey: this.#apiKey, accept, body: payload, signal: exchange.signal }),
    );
    exchange.responded = true;
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    const body = await exchange.beforeStall(this.#limits.stallTimeoutMs, () => response.body.text()).catch(() => '');
    const retryAfter = response.headers['retry-after'];
    throw this.#errors.status(response.statusCode, errorDetail(body), {
      retryAfterHeader: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      sentImages: carriesImages(payload.messages),
    });
  }

  /** Any failure of an exchange as a ChatError; the caller's own abort passes unchanged. */
  #failure(error: unknown, signal: AbortSignal | undefined, exchange: Exchange): unknown {
    if (signal?.aborted) return signal.reason;
    if (error instanceof ChatError) return error;
    if (exchange.expired === 'response') return this.#errors.timeout(this.#limits.responseTimeoutMs, error);
    if (exchange.expired === 'stall') return this.#errors.stalled(this.#limits.stallTimeoutMs, error);
    const code = errorCode(error) ?? (error instanceof Error ? error.message : String(error));
    return exchange.responded ? this.#errors.broken(code, error) : this.#errors.unreachable(code, error);
  }

  /** Waits before the next attempt, or throws `failure` when there is to be none. */
  async #beforeRetry(failure: unknown, attempt: number, exchange: Exchange, signal: AbortSignal | undefined): Promise<void> {
    if (!(failure instanceof ChatError) || !failure.retryable || exchange.textSent || attempt >= this.#limits.maxAttempts) throw failure;
    if (failure.retryAfterMs !== undefined && failure.retryAfterMs > this.#limits.maxRetryDelayMs) throw failure;
    const delay = Math.min(failure.retryAfterMs ?? this.#limits.retryBackoffMs * 2 ** (attempt - 1), this.#limits.maxRetryDelayMs);
    try {
      await sleep(delay, undefined, signal === undefined ? undefined : { signal });
    } catch {
      throw signal?.reason ?? failure;
    }
  }
}
