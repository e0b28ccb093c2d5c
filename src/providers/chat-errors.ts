/**
 * The one error type of the chat provider, and the wording of each failure: every message names
 * the endpoint (never the key, which is masked should a server echo it) and says what to check.
 */
import { retryAfter } from '../net/http-fetcher.js';
import { excerpt } from './excerpt.js';

export type ChatFailure =
  /** No connection, or it broke before any response. */
  | 'unreachable'
  /** An HTTP error status, or an error object sent in the stream. */
  | 'refused'
  /** No response, or no first text, within the response timeout. */
  | 'timeout'
  /** Silence mid-answer longer than the stall timeout. */
  | 'stalled'
  /** The connection broke, or the stream ended, before the answer was complete. */
  | 'broken'
  /** Something that is not the chat-completions format. */
  | 'malformed'
  /** The reader stopped before the end of the stream. */
  | 'stopped';

export interface ChatErrorDetails {
  /** The HTTP status, or the code of an error sent in the stream. */
  readonly status?: number;
  /** Whether another attempt may succeed (if no text has been handed out yet). */
  readonly retryable?: boolean;
  readonly retryAfterMs?: number;
  readonly cause?: unknown;
}

export class ChatError extends Error {
  override readonly name = 'ChatError';
  readonly failure: ChatFailure;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(failure: ChatFailure, message: string, details: ChatErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.failure = failure;
    this.status = details.status;
    this.retryable = details.retryable ?? false;
    this.retryAfterMs = details.retryAfterMs;
  }
}

export const retryableStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500;

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** The ChatErrors of one endpoint, model and key. */
export class ChatErrors {
  readonly #endpoint: string;
  readonly #model: string;
  readonly #apiKey: string | undefined;

  constructor(endpoint: string, model: string, apiKey: string | undefined) {
    this.#endpoint = endpoint;
    this.#model = model;
    this.#apiKey = apiKey;
  }

  /** `text` on one line, at most `chars` long, with the key masked. */
  excerpt(text: string, chars = 300): string {
    return excerpt(text, this.#apiKey, chars);
  }

  /**
   * An HTTP error status; `detail` is the server's own message, if it sent one. A request refused
   * over its images (a model that takes text only) is told apart by `detail` naming image or content.
   */
  status(status: number, detail: string, request: { readonly retryAfterHeader: string | undefined; readonly sentImages: boolean }): ChatError {
    const retryAfterMs = retryAfter(request.retryAfterHeader);
    const shown = this.excerpt(detail);
    let advice: string;
    if (status === 401 || status === 403) advice = 'check GURU_LLM_API_KEY';
    else if (status === 404) advice = `check GURU_LLM_MODEL ("${this.#model}") and that GURU_LLM_URL is the API root, ending in /v1`;
    else if (status === 429) {
      const wait = retryAfterMs === undefined ? '' : `it asks to wait ${seconds(retryAfterMs)}; `;
      advice = `${wait}check the rate limits of the account, or try again later`;
    } else if (status >= 500) advice = "the server failed; check its log, or try again later";
    else if (request.sentImages && /image|content/i.test(detail)) {
      advice = `GURU_LLM_MODEL ("${this.#model}") seems not to take images; turn GURU_LLM_IMAGES off, or use a model that reads images`;
    } else advice = `check that GURU_LLM_MODEL ("${this.#model}") is a chat model and that the prompt fits its context`;
    return new ChatError('refused', `The language model at ${this.#endpoint} answered ${status}${shown ? ` (${shown})` : ''}: ${advice}`, {
      status,
      retryable: retryableStatus(status),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }

  /** An error object sent in place of a stream chunk. */
  streamed(detail: string, status: number | undefined): ChatError {
    return new ChatError('refused', `The language model at ${this.#endpoint} reported an error (${this.excerpt(detail)}): check the server's log`, {
      ...(status === undefined ? {} : { status }),
      retryable: status === undefined || retryableStatus(status),
    });
  }

  /** No connection could be made (`code` says why), or it broke before any response. */
  unreachable(code: string, cause: unknown): ChatError {
    return new ChatError('unreachable', `The language model at ${this.#endpoint} could not be reached (${code}): check GURU_LLM_URL and that the server runs`, {
      retryable: code !== 'ENOTFOUND',
      cause,
    });
  }

  /** The connection broke after the response had begun. */
  broken(code: string, cause: unknown): ChatError {
    return new ChatError('broken', `The connection to the language model at ${this.#endpoint} broke off mid-answer (${code}): check the server's log`, {
      retryable: true,
      cause,
    });
  }

  /** The stream ended without `[DONE]` or a finish reason. */
  endedEarly(): ChatError {
    return new ChatError('broken', `The language model at ${this.#endpoint} ended its answer stream before the answer was complete: check the server's log`, {
      retryable: true,
    });
  }

  timeout(ms: number, cause: unknown): ChatError {
    return new ChatError(
      'timeout',
      `The language model at ${this.#endpoint} did not start answering within ${seconds(ms)}: check that the server runs and can serve GURU_LLM_MODEL ("${this.#model}")`,
      { cause },
    );
  }

  stalled(ms: number, cause: unknown): ChatError {
    return new ChatError(
      'stalled',
      `The language model at ${this.#endpoint} stopped sending its answer for ${seconds(ms)}: the server may be overloaded; check its log`,
      { cause },
    );
  }

  /** `what` completes "The language model at URL …", e.g. "sent a stream chunk that is not JSON: …". */
  malformed(what: string): ChatError {
    return new ChatError('malformed', `The language model at ${this.#endpoint} ${what}: is GURU_LLM_URL an OpenAI-compatible API?`);
  }

  stopped(): ChatError {
    return new ChatError('stopped', `The answer stream of the language model at ${this.#endpoint} was not read to its end.`);
  }
}
