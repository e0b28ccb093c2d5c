/**
 * The REST rate limit over Keyv, as a GCRA (a token bucket kept as a single
 * timestamp) per bucket: a bucket of `limit` requests per minute allows that many
 * at once and regains one every `60 / limit` seconds. The window slides, so a
 * burst cannot double up at a minute boundary, and one number per bucket is all
 * that is stored.
 *
 * Each request is charged to two buckets: its end user's (or, without one, its
 * key's) at the limit, and its key's as a whole at `keyLimitFactor` times the
 * limit, so that a key cannot escape the limit by naming a new end user each time.
 *
 * Updates are serialized per bucket within the process. Instances sharing the
 * SQLite store may race on the same bucket; the limit is then approximate, never
 * stricter. On Redis (GURU_REDIS_URL) each step is one script run in Redis, so
 * every process charges the same bucket exactly.
 *
 * A store that fails lets the request through (logged by the store): the limit
 * protects the service, and an unreachable state store must not take it down.
 *
 * End users' ids never reach the store: a bucket is named by a keyed hash of the
 * guru and the id (with `idKey`, the data directory's, so that every instance on
 * it names a bucket alike), and erasing an end user drops their bucket (`forget`).
 */
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type Keyv from 'keyv';
import { dataDirSecret, SECRET_KEY_FILE } from '../data-dir.js';
import type { Logger } from '../log.js';
import { openStateStore, sharedStoreOf, STATE_FILE, type SharedStateStore, type StateLocation } from './keyv.js';

const WINDOW_MS = 60_000;
/** A key may send this many times the per-user limit, all its end users together. */
export const KEY_LIMIT_FACTOR = 10;

export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

/** Who sends a request: a key of a guru, on behalf of an end user when the request names one. */
export interface RateSubject {
  readonly guru: string;
  readonly apiKey: string;
  readonly externalUserId?: string | undefined;
}

/** An end user of a guru, as erasing their data names them. */
export interface RateEndUser {
  readonly guru: string;
  readonly externalUserId: string;
}

export interface RateLimiter {
  /** Charges one request of `subject`; refused while its end user or its key is over the limit. */
  consume(subject: RateSubject): Promise<RateDecision>;
  /** Drops what is kept of the end user (their window), once their data is erased. */
  forget(endUser: RateEndUser): Promise<void>;
}

export interface RateLimiterOptions {
  /** Holds the theoretical arrival time (ms since epoch) per bucket. */
  readonly store: Keyv;
  /** Requests per minute per guru and end user (or key); a positive integer. "No limit" is no limiter. */
  readonly limitPerMinute: number;
  /** Multiple of `limitPerMinute` a key may send in all; KEY_LIMIT_FACTOR unless given. */
  readonly keyLimitFactor?: number;
  /** The key of the hash that names end users' buckets; without one, a plain SHA-256 (tests). */
  readonly idKey?: Buffer;
  /** The time in ms; without one, Date.now, or on a shared store (Redis) that store's own clock. */
  readonly clock?: () => number;
}

const ALLOWED: RateDecision = { allowed: true };

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { store, limitPerMinute, keyLimitFactor = KEY_LIMIT_FACTOR, idKey } = options;
  for (const [name, value] of [['limitPerMinute', limitPerMinute], ['keyLimitFactor', keyLimitFactor]] as const) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }

  const now = options.clock ?? Date.now;
  const userInterval = WINDOW_MS / limitPerMinute;
  const keyInterval = WINDOW_MS / (limitPerMinute * keyLimitFactor);
  const pending = new Map<string, Promise<unknown>>();
  const shared = sharedStoreOf(store);

  async function decide(bucket: string, interval: number): Promise<RateDecision> {
    // Processes on several machines share a Redis bucket: its clock decides, not theirs, which may differ.
    if (shared) return decideShared(shared, bucket, interval, options.clock?.());
    const at = now();
    const stored = await store.get<number>(bucket);
    const arrival = Math.max(typeof stored === 'number' ? stored : at, at);
    const next = arrival + interval;
    if (next - at > WINDOW_MS) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((next - WINDOW_MS - at) / 1000)) };
    }
    await store.set(bucket, next, Math.ceil(next - at));
    return ALLOWED;
  }

  /** The same step as `decide`, taken atomically in Redis; a failing Redis lets the request through. */
  async function decideShared(redis: SharedStateStore, bucket: string, interval: number, at: number | undefined): Promise<RateDecision> {
    let waitMs: number;
    try {
      waitMs = await redis.gcra(bucket, at, interval, WINDOW_MS);
    } catch (error) {
      // Reported as the store's other failures are (logged, at most every so often).
      store.emit('error', error);
      return ALLOWED;
    }
    return waitMs > 0 ? { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) } : ALLOWED;
  }

  /** One request against one bucket, after the requests already queued on it. */
  function take(bucket: string, interval: number): Promise<RateDecision> {
    return serialized(bucket, () => decide(bucket, interval));
  }

  /** Runs `work` on `bucket` after the work already queued on it. */
  function serialized<T>(bucket: string, work: () => Promise<T>): Promise<T> {
    const previous = pending.get(bucket) ?? Promise.resolve();
    const result = previous.then(work, work);
    const settled = result.catch(() => undefined);
    pending.set(bucket, settled);
    void settled.then(() => {
      if (pending.get(bucket) === settled) pending.delete(bucket);
    });
    return result;
  }

  return {
    async consume(subject) {
      // The end user first: a request refused there does not use up what the key's other users share.
      const user = await take(rateLimitKey(subject, idKey), userInterval);
      if (!user.allowed) return user;
      return take(keyBucketOf(subject), keyInterval);
    },
    async forget({ guru, externalUserId }) {
      if (externalUserId === '') return;
      const bucket = rateLimitKey({ guru, apiKey: '', externalUserId }, idKey);
      await serialized(bucket, () => store.delete(bucket));
    },
  };
}

/**
 * The bucket of a guru and end user (a keyed hash of both: no id is stored in clear), or of the
 * key for requests without one. The API key enters only as a hash.
 */
export function rateLimitKey(subject: RateSubject, idKey?: Buffer): string {
  const { guru, externalUserId } = subject;
  if (externalUserId === undefined || externalUserId === '') return `${guru}:key:${digest(subject.apiKey)}`;
  const named = `${guru}\0${externalUserId}`;
  const hash = idKey === undefined ? createHash('sha256').update(named) : createHmac('sha256', idKey).update(named);
  return `${guru}:user:${hash.digest('hex').slice(0, 32)}`;
}

/** The key of the hash that names end users' buckets for the limiters on `dataDir`: derived from its secret.key. */
export function rateLimitIdKey(dataDir: string): Buffer {
  return Buffer.from(hkdfSync('sha256', dataDirSecret(dataDir), Buffer.alloc(0), 'guru-mcp rate-limit end users', 32));
}

/**
 * Drops an end user's window from the store the limiters on `location` share, for an erase in a
 * process that runs none (the engine's, whichever surface asked): a server's would keep it until
 * it runs out. Without a store or a secret on the directory, no window was ever kept.
 */
export async function forgetRateLimitWindow(location: StateLocation, endUser: RateEndUser, logger?: Logger): Promise<void> {
  const { dataDir } = location;
  if (endUser.externalUserId === '' || !existsSync(join(dataDir, SECRET_KEY_FILE))) return;
  if (location.redisUrl === undefined && !existsSync(join(dataDir, STATE_FILE))) return;
  const store = await openStateStore(location, RATE_LIMIT_NAMESPACE, logger);
  try {
    await store.delete(rateLimitKey({ ...endUser, apiKey: '' }, rateLimitIdKey(dataDir)));
  } finally {
    await store.disconnect();
  }
}

/** The state store's namespace of the rate limiter's windows. */
export const RATE_LIMIT_NAMESPACE = 'rate-limit';

/** The bucket of everything a key sends to a guru. */
const keyBucketOf = (subject: RateSubject): string => `${subject.guru}:all:${digest(subject.apiKey)}`;

const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 32);
