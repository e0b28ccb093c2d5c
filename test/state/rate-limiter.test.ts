import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Keyv from 'keyv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/keyv.js';
import { createRateLimiter, rateLimitKey } from '../../src/state/rate-limiter.js';

const KEY = { guru: 'docs', apiKey: 'secret-key' };

describe('createRateLimiter', () => {
  let dataDir: string;
  let store: Keyv;
  let now: number;
  const clock = () => now;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-limit-'));
    store = await openStateStore({ dataDir }, 'rate-limit');
    now = Date.UTC(2026, 0, 1, 12, 0, 30);
  });

  afterEach(async () => {
    await store.disconnect();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('allows the limit at once, then refuses with the seconds until a request is regained', async () => {
    const limiter = createRateLimiter({ store, limitPerMinute: 3, clock });
    expect(await limiter.consume(KEY)).toEqual({ allowed: true });
    expect(await limiter.consume(KEY)).toEqual({ allowed: true });
    expect(await limiter.consume(KEY)).toEqual({ allowed: true });
    expect(await limiter.consume(KEY)).toEqual({ allowed: false, retryAfterSeconds: 20 });

    now += 15_000;
    expect(await limiter.consume(KEY)).toEqual({ allowed: false, retryAfterSeconds: 5 });
    now += 5_000;
    expect(await limiter.consume(KEY)).toEqual({ allowed: true });
    expect(await limiter.consume(KEY)).toEqual({ allowed: false, retryAfterSeconds: 20 });
  });

  it('does not let a burst double up across a minute boundary', async () => {
    const limiter = createRateLimiter({ store, limitPerMinute: 2, clock });
    now = Date.UTC(2026, 0, 1, 12, 0, 59, 999);
    expect((await limiter.consume(KEY)).allowed).toBe(true);
    expect((await limiter.consume(KEY)).allowed).toBe(true);
    now += 2;
    expect((await limiter.consume(KEY)).allowed).toBe(false);
  });

  it('keeps end users, keys and gurus apart', async () => {
    const limiter = createRateLimiter({ store, limitPerMinute: 1, clock });
    const alice = { ...KEY, externalUserId: 'alice' };
    expect((await limiter.consume(alice)).allowed).toBe(true);
    expect((await limiter.consume({ ...KEY, externalUserId: 'bob' })).allowed).toBe(true);
    expect((await limiter.consume(KEY)).allowed).toBe(true);
    expect((await limiter.consume({ ...KEY, apiKey: 'another-key' })).allowed).toBe(true);
    expect((await limiter.consume({ ...alice, guru: 'other' })).allowed).toBe(true);
    expect((await limiter.consume(alice)).allowed).toBe(false);
    expect((await limiter.consume(KEY)).allowed).toBe(false);
  });

  it('limits a key to ten times the limit, whatever end users it names', async () => {
    const limiter = createRateLimiter({ store, limitPerMinute: 2, clock });
    const user = (name: string) => ({ ...KEY, externalUserId: name });
    for (let i = 0; i < 20; i++) expect((await limiter.consume(user(`invented-${i}`))).allowed, `user ${i}`).toBe(true);
    expect(await limiter.consume(user('one-more'))).toEqual({ allowed: false, retryAfterSeconds: 3 });
    expect((await limiter.consume(KEY)).allowed).toBe(false);
    // Another key of the same guru has its own allowance.
    expect((await limiter.consume({ ...KEY, apiKey: 'another-key', externalUserId: 'one-more' })).allowed).toBe(true);
  });

  it('does not charge the key for requests its end user was refused', async () => {
    const limiter = createRateLimiter({ store, limitPerMinute: 1, keyLimitFactor: 2, clock });
    const alice = { ...KEY, externalUserId: 'alice' };
    expect((await limiter.consume(alice)).allowed).toBe(true);
    for (let i = 0; i < 5; i++) expect((await limiter.consume(alice)).allowed).toBe(false);
    expect((await limiter.consume({ ...KEY, externalUserId: 'bob' })).allowed).toBe(true);
    expect((await limiter.consume({ ...KEY, externalUserId: 'carol' })).allowed).toBe(false);
  });

  it('counts concurrent requests of one key one by one', async () => {
    const limiter = createRateLimiter({ store, limitPerMinute: 5, clock });
    const decisions = await Promise.all(Array.from({ length: 8 }, () => limiter.consume(KEY)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
  });

  it('shares windows between limiters on the same store', async () => {
    const other = await openStateStore({ dataDir }, 'rate-limit');
    try {
      const first = createRateLimiter({ store, limitPerMinute: 1, clock });
      const second = createRateLimiter({ store: other, limitPerMinute: 1, clock });
      expect((await first.consume(KEY)).allowed).toBe(true);
      expect((await second.consume(KEY)).allowed).toBe(false);
    } finally {
      await other.disconnect();
    }
  });

  it('forgets an end user: their window goes from the store, other users\' and the key\'s stay', async () => {
    const limiter = createRateLimiter({ store, limitPerMinute: 1, keyLimitFactor: 3, clock });
    const alice = { ...KEY, externalUserId: 'alice@example.com' };
    const bob = { ...KEY, externalUserId: 'bob' };
    expect((await limiter.consume(alice)).allowed).toBe(true);
    expect((await limiter.consume(bob)).allowed).toBe(true);
    expect((await limiter.consume(alice)).allowed).toBe(false);
    expect(await store.get(rateLimitKey(alice))).toBeTypeOf('number');

    await limiter.forget({ guru: 'docs', externalUserId: 'alice@example.com' });
    expect(await store.get(rateLimitKey(alice))).toBeUndefined();
    expect(await store.get(rateLimitKey(bob))).toBeTypeOf('number');
    expect((await limiter.consume(bob)).allowed).toBe(false);
    // The key's window is kept: forgetting a user gives the key nothing back.
    expect((await limiter.consume(alice)).allowed).toBe(true);
    expect((await limiter.consume({ ...KEY, externalUserId: 'carol' })).allowed).toBe(false);
  });

  it('takes only a positive whole limit: no limit is no limiter', () => {
    for (const limitPerMinute of [0, -1, 1.5]) {
      expect(() => createRateLimiter({ store, limitPerMinute })).toThrow(RangeError);
    }
    expect(() => createRateLimiter({ store, limitPerMinute: 1, keyLimitFactor: 0 })).toThrow(RangeError);
  });
});

describe('rateLimitKey', () => {
  it('names the guru and a hash of the end user, or of the key, never either in clear', () => {
    const user = rateLimitKey({ guru: 'docs', externalUserId: 'u-1@example.com', apiKey: 'secret-key' });
    expect(user).toMatch(/^docs:user:[0-9a-f]{32}$/);
    expect(rateLimitKey({ guru: 'other', externalUserId: 'u-1@example.com', apiKey: 'secret-key' })).toMatch(/^other:user:/);
    expect(rateLimitKey({ guru: 'docs', externalUserId: 'u-2', apiKey: 'secret-key' })).not.toBe(user);
    // The API key does not name an end user's bucket: every key of the guru shares it.
    expect(rateLimitKey({ guru: 'docs', externalUserId: 'u-1@example.com', apiKey: 'another-key' })).toBe(user);
    // Keyed: without the data directory's secret the id cannot be tried against the bucket.
    const keyed = rateLimitKey({ guru: 'docs', externalUserId: 'u-1@example.com', apiKey: 'k' }, Buffer.alloc(32, 7));
    expect(keyed).toMatch(/^docs:user:[0-9a-f]{32}$/);
    expect(keyed).not.toBe(user);
    expect(rateLimitKey({ guru: 'docs', externalUserId: 'u-1@example.com', apiKey: 'k' }, Buffer.alloc(32, 8))).not.toBe(keyed);
    const byKey = rateLimitKey({ guru: 'docs', apiKey: 'secret-key' });
    expect(byKey).toMatch(/^docs:key:[0-9a-f]{32}$/);
    expect(byKey).not.toContain('secret-key');
    expect(rateLimitKey({ guru: 'docs', externalUserId: '', apiKey: 'secret-key' })).toBe(byKey);
    expect(rateLimitKey({ guru: 'other', apiKey: 'secret-key' })).toMatch(/^other:key:/);
    expect(rateLimitKey({ guru: 'docs', apiKey: 'another-key' })).not.toBe(byKey);
    expect(rateLimitKey({ guru: 'docs', externalUserId: 'x'.repeat(300), apiKey: 'k' })).toMatch(/^docs:user:[0-9a-f]{32}$/);
  });
});
