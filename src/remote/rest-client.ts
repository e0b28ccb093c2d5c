/**
 * HTTP calls to the service's REST API over one pooled undici connection set:
 * the key on every call, timeouts, bounded retries of idempotent calls, bounded
 * and reported waits on throttling, and every failure turned into a GuruError.
 */
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from 'undici';
import { bytesOf, createAgent } from '../net/agent.js';
import type { Dispatcher } from 'undici';
import type * as z from 'zod';
import type { GuruError } from '../core/errors.js';
import type { Logger } from '../log.js';
import type { Endpoint } from './endpoint.js';
import { networkError, notJson, responseMismatch, serviceError, type ServiceAddress } from './failures.js';
import { backoffDelayMs, type RetryPolicy, type Timeouts } from './policy.js';

/** One key for every call, or the key of each guru (a key reaches only its own guru; undefined: a call of no guru). */
export type ApiKey = string | ((guru: string | undefined) => string);

export interface RestClientOptions {
  /** Base URL of the API, version segment included: `https://api.gurubase.io/api/v1`. */
  readonly baseUrl: string;
  readonly apiKey: ApiKey;
  readonly logger: Logger;
  readonly timeouts: Timeouts;
  readonly retry: RetryPolicy;
}

export interface CallOptions {
  /** Sent as JSON. */
  readonly body?: unknown;
  readonly query?: Readonly<Record<string, string | number>>;
  readonly signal?: AbortSignal;
  /** Told before each wait on throttling, with its length in seconds. */
  readonly onThrottle?: (seconds: number) => void;
}

type ResponseBody = Dispatcher.ResponseData['body'];
type Attempt<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: GuruError };

/** The largest response accepted; a listing of 1000 sources is far below it. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Calls to the service at once; more wait for a free connection. */
const CONNECTIONS = 8;

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** Waits, unless the caller aborts: then rejects with the caller's reason, as an aborted request does. */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    throw signal?.aborted ? signal.reason : error;
  }
}

/** An exception of the caller's own callback, passed through untouched rather than taken for a network failure. */
class CallbackFailure {
  constructor(readonly error: unknown) {}
}

export class RestClient {
  readonly #agent: Agent;
  readonly #origin: string;
  readonly #basePath: string;
  readonly #apiKey: ApiKey;
  readonly #logger: Logger;
  readonly #timeouts: Timeouts;
  readonly #retry: RetryPolicy;
  readonly #address: ServiceAddress;
  #closed: Promise<void> | undefined;

  constructor(options: RestClientOptions) {
    const base = new URL(options.baseUrl);
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#logger = options.logger;
    this.#timeouts = options.timeouts;
    this.#retry = options.retry;
    const basePath = this.#basePath;
    this.#address = {
      base: `${base.origin}${basePath}`,
      name: (endpoint) => `${endpoint.method} ${basePath}${endpoint.path}`,
    };
    this.#origin = base.origin;
    // The service's address is the operator's choice, so private networks are allowed here;
    // per-call timeouts below override the agent's defaults.
    this.#agent = createAgent({
      allowPrivateNetwork: true,
      connectTimeoutMs: options.timeouts.connectMs,
      headersTimeoutMs: options.timeouts.answerMs,
      bodyTimeoutMs: options.timeouts.answerMs,
      connectionsPerOrigin: CONNECTIONS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
  }

  /** Calls `endpoint` and returns its JSON body, checked against `schema`. */
  async json<S extends z.ZodType>(endpoint: Endpoint, schema: S, options: CallOptions = {}): Promise<z.output<S>> {
    const { text, headers } = await this.#call(endpoint, options, 'application/json', async (body, responseHeaders) => ({
      text: await body.text(),
      headers: responseHeaders,
    }));
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw notJson(this.#address, endpoint, headers, text);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw responseMismatch(this.#address, endpoint, parsed.error);
    return parsed.data;
  }

  /** Calls `endpoint` and hands its text body to `onText` piece by piece, as the pieces arrive. */
  async stream(endpoint: Endpoint, onText: (text: string) => void, options: CallOptions = {}): Promise<void> {
    await this.#call(endpoint, options, 'text/plain, */*', async (body) => {
      const decoder = new TextDecoder('utf-8');
      const forward = (text: string) => {
        if (text === '') return;
        try {
          onText(text);
        } catch (error) {
          throw new CallbackFailure(error);
        }
      };
      for await (const chunk of body) forward(decoder.decode(chunk as Buffer, { stream: true }));
      forward(decoder.decode());
    });
  }

  /**
   * Calls `endpoint` and returns its binary body, chunk by chunk as it arrives.
   * The call is made (and its errors thrown) before this resolves; a failure
   * while the body is read ends the iteration with the network error.
   */
  async bytes(endpoint: Endpoint, options: CallOptions = {}): Promise<AsyncIterable<Uint8Array>> {
    const body = await this.#call(endpoint, options, '*/*', async (received) => received);
    const failure = (error: unknown) => (options.signal?.aborted ? options.signal.reason : networkError(this.#address, endpoint, error, this.#timeoutOf(endpoint)));
    return bytesOf(body, failure);
  }

  close(): Promise<void> {
    this.#closed ??= this.#agent.destroy();
    return this.#closed;
  }

  /** Attempts a call until it succeeds, fails for good, or the retry and throttle bounds are spent. */
  async #call<T>(
    endpoint: Endpoint,
    options: CallOptions,
    accept: string,
    consume: (body: ResponseBody, headers: Dispatcher.ResponseData['headers']) => Promise<T>,
  ): Promise<T> {
    const { signal } = options;
    let retries = 0;
    let waits = 0;
    for (;;) {
      signal?.throwIfAborted();
      let attempt: Attempt<T>;
      try {
        attempt = await this.#attempt(endpoint, options, accept, consume);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (error instanceof CallbackFailure) throw error.error;
        const failure = networkError(this.#address, endpoint, error, this.#timeoutOf(endpoint));
        if (!endpoint.idempotent || retries >= this.#retry.retries) throw failure;
        retries += 1;
        await this.#backOff(endpoint, retries, failure.message, signal);
        continue;
      }
      if (attempt.ok) return attempt.value;

      const { error } = attempt;
      if (error.status === 429) {
        const seconds = error.retryAfterSeconds;
        if (seconds === undefined || seconds > this.#retry.maxThrottleWaitSeconds || waits >= this.#retry.maxThrottleWaits) throw error;
        waits += 1;
        // At least a second: "available in 0 seconds" must not turn into a busy loop.
        const wait = Math.max(1, seconds);
        this.#logger.warn('rate limited by the guru service; retrying', { endpoint: this.#address.name(endpoint), seconds: wait });
        options.onThrottle?.(wait);
        await pause(wait * 1000, signal);
        continue;
      }
      if (error.status >= 500 && endpoint.idempotent && retries < this.#retry.retries) {
        retries += 1;
        await this.#backOff(endpoint, retries, `HTTP ${error.status}: ${error.message}`, signal);
        continue;
      }
      throw error;
    }
  }

  async #backOff(endpoint: Endpoint, retry: number, reason: string, signal: AbortSignal | undefined): Promise<void> {
    const delay = backoffDelayMs(this.#retry, retry);
    this.#logger.warn('guru service call failed; retrying', {
      endpoint: this.#address.name(endpoint),
      retry,
      of: this.#retry.retries,
      in_ms: delay,
      reason,
    });
    await pause(delay, signal);
  }

  /** One HTTP exchange: the consumed body of a 2xx answer, or the error another status stands for. */
  async #attempt<T>(
    endpoint: Endpoint,
    options: CallOptions,
    accept: string,
    consume: (body: ResponseBody, headers: Dispatcher.ResponseData['headers']) => Promise<T>,
  ): Promise<Attempt<T>> {
    const headers: Record<string, string> = {
      accept,
      'user-agent': `guru-mcp/${version}`,
      'x-api-key': typeof this.#apiKey === 'string' ? this.#apiKey : this.#apiKey(endpoint.guru),
    };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const query = options.query === undefined ? '' : `?${new URLSearchParams(Object.entries(options.query).map(([k, v]) => [k, String(v)]))}`;
    const timeout = this.#timeoutOf(endpoint);
    const started = performance.now();
    const response = await this.#agent.request({
      origin: this.#origin,
      method: endpoint.method,
      path: `${this.#basePath}${endpoint.path}${query}`,
      headers,
      body,
      signal: options.signal,
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    this.#logger.debug('guru service call', {
      endpoint: this.#address.name(endpoint),
      status: response.statusCode,
      ms: Math.round(performance.now() - started),
    });
    if (response.statusCode >= 200 && response.statusCode < 300) {
      return { ok: true, value: await consume(response.body, response.headers) };
    }
    const text = await response.body.text();
    return { ok: false, error: serviceError(this.#address, endpoint, response.statusCode, response.headers, text) };
  }

  /** Answers are written before their headers go out (or streamed slowly), so asking gets longer. */
  #timeoutOf(endpoint: Endpoint): number {
    return endpoint.operation === 'ask' ? this.#timeouts.answerMs : this.#timeouts.requestMs;
  }
}
