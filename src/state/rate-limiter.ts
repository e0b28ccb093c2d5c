/**
 * A per-minute rate limit over Keyv, as a GCRA (a token bucket kept as a single
 * timestamp): each key may send `limitPerMinute` requests at once, and regains one
 * every `60 / limitPerMinute` seconds. The window slides, so a burst cannot double
 * up at a minute boundary, and one number per key is all that is stored.
 *
 * Updates are serialized per key within the process. Instances sharing the store
 * may race on the same key; the limit is then approximate, never stricter.
 */
import { createHash } from 'node:crypto';
import type Keyv from 'keyv';

const WINDOW_MS = 60_000;

export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

export interface RateLimiter {
  consume(key: string): Promise<RateDecision>;
}

export interface RateLimiterOptions {
  /** Holds the theoretical arrival time (ms since epoch) per key. */
  readonly store: Keyv;
  /** Requests per minute per key; 0 turns the limit off. */
  readonly limitPerMinute: number;
  readonly clock?: () => number;
}

const ALLOWED: RateDecision = { allowed: true };

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { store, limitPerMinute } = options;
  if (!Number.isInteger(limitPerMinute) || limitPerMinute < 0) {
    throw new RangeError(`limitPerMinute must be a non-negative integer, got ${limitPerMinute}`);
  }
  if (limitPerMinute === 0) return { consume: async () => ALLOWED };

  const now = options.clock ?? Date.now;
  const interval = WINDOW_MS / limitPerMinute;
  const pending = new Map<string, Promise<unknown>>();

  async function decide(key: string): Promise<RateDecision> {
    const at = now();
    const stored = await store.get<number>(key);
    const arrival = Math.max(typeof stored === 'number' ? stored : at, at);
    const next = arrival + interval;
    if (next - at > WINDOW_MS) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((next - WINDOW_MS - at) / 1000)) };
    }
    await store.set(key, next, Math.ceil(next - at));
    return ALLOWED;
  }

  return {
    consume(key) {
      const previous = pending.get(key) ?? Promise.resolve();
      const decision = previous.then(
        () => decide(key),
        () => decide(key),
      );
      const settled = decision.catch(() => undefined);
      pending.set(key, settled);
      void settled.then(() => {
        if (pending.get(key) === settled) pending.delete(key);
      });
      return decision;
    },
  };
}

/** Who is being limited: the end user if the caller names one, else the caller's key. */
export interface RateSubject {
  readonly guru: string;
  readonly externalUserId?: string | undefined;
  readonly apiKey: string;
}

/** The limiter key of a guru and end user. The API key enters only as a hash. */
export function rateLimitKey(subject: RateSubject): string {
  const { externalUserId } = subject;
  const user =
    externalUserId === undefined || externalUserId === ''
      ? `key:${digest(subject.apiKey)}`
      : externalUserId.length > MAX_PLAIN_USER_ID
        ? `user#${digest(externalUserId)}`
        : `user:${externalUserId}`;
  return `${subject.guru}:${user}`;
}

/** Longer end-user ids are hashed to keep keys within the store's key size. */
const MAX_PLAIN_USER_ID = 128;

const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 32);
