import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Keyv from 'keyv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/keyv.js';
import { createRateLimiter, rateLimitKey } from '../../src/state/rate-limiter.js';

describe('createRateLimiter', () => {
  let dataDir: string;
  let store: Keyv;
  let now: number;
  const clock = () => now;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-limit-'));
    store = openStateStore(dataDir, 'rate-limit');
    now = Date.UTC(2026, 0, 1, 12, 0, 30);
  });

  afterEach(async () => {
    await store.disconnect();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('allows the limit at once, then refuses with the seconds until a request is regained', async () => {
    const limiter = createRateLimiter({ store, limitPerMinute: 3, clock });
    expect(await limiter.consume('k')).toEqual({ allowed: true });
    expect(await limiter.consume('k')).toEqual({ allowed: true });
    expect(await limiter.consume('k')).toEqual({ allowed: true });
    expect(await limiter.consume('k')).toEqual({ allowed: false, retryAfterSeconds: 20 });

    now += 15_000;
    expect(await limiter.consume('k')).toEqual({ allowed: false, retryAfterSeconds: 5 });
    now += 5_000;
    expect(await limiter.consume('k')).toEqual({ allowed: true });
    expect(await limiter.consume('k')).toEqual({ allowed: false, retryAfterSeconds: 20 });
  });

  it('does not let a burst double up across a minute boundary', async () => {
    const limiter = createRateLimiter({ store, limitPerMinute: 2, clock });
    now = Date.UTC(2026, 0, 1, 12, 0, 59, 999);
    expect((await limiter.consume('k')).allowed).toBe(true);
    expect((await limiter.consume('k')).allowed).toBe(true);
    now += 2;
    expect((await limiter.consume('k')).allowed).toBe(false);
  });

  it('keeps keys apart', async () => {
    const limiter = createRateLimiter({ store, limitPerMinute: 1, clock });
    expect((await limiter.consume('a')).allowed).toBe(true);
    expect((await limiter.consume('b')).allowed).toBe(true);
    expect((await limiter.consume('a')).allowed).toBe(false);
  });

  it('counts concurrent requests of one key one by one', async () => {
    const limiter = createRateLimiter({ store, limitPerMinute: 5, clock });
    const decisions = await Promise.all(Array.from({ length: 8 }, () => limiter.consume('k')));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
  });

  it('shares windows between limiters on the same store', async () => {
    const other = openStateStore(dataDir, 'rate-limit');
    try {
      const first = createRateLimiter({ store, limitPerMinute: 1, clock });
      const second = createRateLimiter({ store: other, limitPerMinute: 1, clock });
      expect((await first.consume('k')).allowed).toBe(true);
      expect((await second.consume('k')).allowed).toBe(false);
    } finally {
      await other.disconnect();
    }
  });

  it('is off at 0 and rejects a negative limit', async () => {
    const limiter = createRateLimiter({ store, limitPerMinute: 0, clock });
    for (let i = 0; i < 50; i++) expect(await limiter.consume('k')).toEqual({ allowed: true });
    expect(() => createRateLimiter({ store, limitPerMinute: -1 })).toThrow(RangeError);
  });
});

describe('rateLimitKey', () => {
  it('names the guru and the end user, or a hash of the key but never the key itself', () => {
    expect(rateLimitKey({ guru: 'docs', externalUserId: 'u-1', apiKey: 'secret-key' })).toBe('docs:user:u-1');
    const byKey = rateLimitKey({ guru: 'docs', apiKey: 'secret-key' });
    expect(byKey).toMatch(/^docs:key:[0-9a-f]{32}$/);
    expect(byKey).not.toContain('secret-key');
    expect(rateLimitKey({ guru: 'docs', externalUserId: '', apiKey: 'secret-key' })).toBe(byKey);
    expect(rateLimitKey({ guru: 'other', apiKey: 'secret-key' })).toMatch(/^other:key:/);
    expect(rateLimitKey({ guru: 'docs', apiKey: 'another-key' })).not.toBe(byKey);
    expect(rateLimitKey({ guru: 'docs', externalUserId: 'x'.repeat(300), apiKey: 'k' })).toMatch(/^docs:user#[0-9a-f]{32}$/);
  });
});
