/**
 * How patient the remote adapter is: timeouts, retries of idempotent calls,
 * and waits on throttling. Every wait is bounded, so a call either succeeds,
 * fails with the service's own error, or fails with a clear network error.
 */

export interface Timeouts {
  /** Establishing the TCP/TLS connection. */
  readonly connectMs: number;
  /** Waiting for the response headers, and for each piece of the body, of ordinary calls. */
  readonly requestMs: number;
  /** The same for asking: an answer is written before its headers go out, or streamed slowly. */
  readonly answerMs: number;
}

export interface RetryPolicy {
  /** Further attempts of an idempotent call after a network error or a 5xx answer. */
  readonly retries: number;
  /** Pause before the first retry; each further one waits four times longer. */
  readonly backoffMs: number;
  /** A throttled call waits at most this long at a time; a longer wait is the caller's to decide. */
  readonly maxThrottleWaitSeconds: number;
  /** How often one call waits on throttling before the 429 is handed to the caller. */
  readonly maxThrottleWaits: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, requestMs: 60_000, answerMs: 300_000 };

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 2,
  backoffMs: 250,
  maxThrottleWaitSeconds: 30,
  maxThrottleWaits: 2,
};

/** Pause before retry number `retry` (1-based): 250 ms, 1 s, 4 s, ... with the defaults. */
export const backoffDelayMs = (policy: RetryPolicy, retry: number): number => policy.backoffMs * 4 ** (retry - 1);

const EXPECTED_AVAILABLE = /expected available in (\d+(?:\.\d+)?) seconds?/i;

/**
 * Seconds a throttled caller is told to wait: from the message ("Expected
 * available in N seconds", the spec's wording), else from a Retry-After header
 * (seconds or an HTTP date). Undefined when the service does not say.
 */
export function throttleSeconds(message: string, retryAfter: string | undefined, now = Date.now()): number | undefined {
  const stated = EXPECTED_AVAILABLE.exec(message);
  if (stated) return Math.ceil(Number(stated[1]));
  if (retryAfter === undefined) return undefined;
  const value = retryAfter.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
