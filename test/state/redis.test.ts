/**
 * The state store on a real redis-server (started on loopback for these tests): what
 * `openStateStore` gives with a Redis URL, the rate limiter on it, and a Redis that cannot be
 * reached (a miss and a warning, never a throw, and the password never in a log line).
 */
import type Keyv from 'keyv';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log.js';
import { deleteKeysStartingWith, openStateStore } from '../../src/state/keyv.js';
import { createRateLimiter } from '../../src/state/rate-limiter.js';
import { freePort, startRedis, type TestRedis } from '../support/redis.js';

describe('the state store on Redis', () => {
  let redis: TestRedis;
  const stores: Keyv[] = [];
  // No data directory is touched with a Redis URL: this one does not exist.
  const location = () => ({ dataDir: '/nonexistent/guru-redis-test', redisUrl: redis.url });
  const open = async (namespace: string, logger = createLogger('error', () => {})) => {
    const store = await openStateStore(location(), namespace, logger);
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.disconnect()));
    await redis.client.flushAll();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  it('keeps each namespace under its own prefix, shared by every connection', async () => {
    const first = await open('answer-progress');
    const second = await open('answer-progress');
    const other = await open('rate-limit');
    expect(await first.set('line', { status_text: 'Writing the answer…' })).toBe(true);
    expect(await second.get('line')).toEqual({ status_text: 'Writing the answer…' });
    expect(await other.get('line')).toBeUndefined();
    expect(await redis.client.keys('*')).toEqual(['guru-mcp:answer-progress::line']);
  });

  it('lets entries expire in Redis at their lifetime', async () => {
    const store = await open('answer-progress');
    await store.set('short', 1, 300);
    await store.set('long', 2, 120_000);
    const short = await redis.client.pTTL('guru-mcp:answer-progress::short');
    expect(short).toBeGreaterThan(0);
    expect(short).toBeLessThanOrEqual(300);
    expect(await redis.client.pTTL('guru-mcp:answer-progress::long')).toBeGreaterThan(100_000);
    // Redis removes it itself: wait for that rather than for a time.
    while ((await redis.client.exists('guru-mcp:answer-progress::short')) === 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await store.get('short')).toBeUndefined();
    expect(await store.get('long')).toBe(2);
  });

  it("deletes a prefix's keys of one namespace only, the prefix taken literally", async () => {
    const limits = await open('rate-limit');
    const progress = await open('answer-progress');
    for (const key of ['docs:user:1', 'docs:key:2', 'docs-2:user:1', 'doc*:user:1', 'docsx:all:3']) await limits.set(key, 1, 60_000);
    await progress.set('docs:user:1', 1, 60_000);

    expect(await deleteKeysStartingWith(limits, 'doc*:')).toBe(1);
    expect(await deleteKeysStartingWith(limits, 'docs:')).toBe(2);
    expect((await redis.client.keys('*')).sort()).toEqual([
      'guru-mcp:answer-progress::docs:user:1',
      'guru-mcp:rate-limit::docs-2:user:1',
      'guru-mcp:rate-limit::docsx:all:3',
    ]);
  });

  it('counts one rate limit across limiters on separate connections, exactly, under concurrency', async () => {
    let now = Date.UTC(2026, 0, 1, 12, 0, 30);
    const clock = () => now;
    const subject = { guru: 'docs', apiKey: 'secret-key', externalUserId: 'ann' };
    const one = createRateLimiter({ store: await open('rate-limit'), limitPerMinute: 3, clock });
    const two = createRateLimiter({ store: await open('rate-limit'), limitPerMinute: 3, clock });

    expect(await one.consume(subject)).toEqual({ allowed: true });
    expect(await two.consume(subject)).toEqual({ allowed: true });
    expect(await one.consume(subject)).toEqual({ allowed: true });
    expect(await two.consume(subject)).toEqual({ allowed: false, retryAfterSeconds: 20 });
    now += 20_000;
    expect(await two.consume(subject)).toEqual({ allowed: true });
    expect(await one.consume(subject)).toEqual({ allowed: false, retryAfterSeconds: 20 });

    // Many at once through both: exactly the limit goes through (each step is atomic in Redis).
    const other = { ...subject, externalUserId: 'bob' };
    const many = createRateLimiter({ store: await open('rate-limit'), limitPerMinute: 5, clock });
    const more = createRateLimiter({ store: await open('rate-limit'), limitPerMinute: 5, clock });
    const decisions = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? many : more).consume(other)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);

    await one.forget({ guru: 'docs', externalUserId: 'bob' });
    expect(await many.consume(other)).toEqual({ allowed: true });
  });

  it("decides on Redis's clock: a process whose clock is ten minutes behind is not refused for the others' requests", async () => {
    const subject = { guru: 'docs', apiKey: 'secret-key', externalUserId: 'cy' };
    const here = createRateLimiter({ store: await open('rate-limit'), limitPerMinute: 3 });
    expect(await here.consume(subject)).toEqual({ allowed: true });
    vi.useFakeTimers({ now: Date.now() - 10 * 60_000, toFake: ['Date'] });
    try {
      const behind = createRateLimiter({ store: await open('rate-limit'), limitPerMinute: 3 });
      expect(await behind.consume(subject)).toEqual({ allowed: true });
      expect(await behind.consume(subject)).toEqual({ allowed: true });
    } finally {
      vi.useRealTimers();
    }
    expect(await here.consume(subject)).toMatchObject({ allowed: false });
  });
});

describe('the state store on an unreachable Redis', () => {
  it('reads as a miss, writes nothing, lets requests through, and warns without the password', async () => {
    const lines: string[] = [];
    const url = `redis://:hunter2@127.0.0.1:${await freePort()}/0`;
    const store = await openStateStore({ dataDir: '/nonexistent/guru-redis-test', redisUrl: url }, 'rate-limit', createLogger('warn', (line) => lines.push(line)));
    try {
      expect(await store.get('k')).toBeUndefined();
      expect(await store.set('k', 1, 1000)).toBe(false);
      expect(await store.delete('k')).toBe(false);
      const limiter = createRateLimiter({ store, limitPerMinute: 1 });
      const subject = { guru: 'docs', apiKey: 'k' };
      expect(await limiter.consume(subject)).toEqual({ allowed: true });
      expect(await limiter.consume(subject)).toEqual({ allowed: true });
      await expect(deleteKeysStartingWith(store, 'docs:')).rejects.toThrow();
    } finally {
      await store.disconnect();
    }
    // One warning for the burst of failures, naming the store, never the password.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/warn state store failed namespace="rate-limit" store="redis" error=".*ECONNREFUSED/);
    expect(lines.join('')).not.toContain('hunter2');
  });

  it('recovers once Redis is back', async () => {
    const port = await freePort();
    const store = await openStateStore({ dataDir: '/nonexistent/guru-redis-test', redisUrl: `redis://127.0.0.1:${port}` }, 'answer-progress', createLogger('error', () => {}));
    let redis: TestRedis | undefined;
    try {
      expect(await store.set('k', 1, 60_000)).toBe(false);
      redis = await startRedis(port);
      // The next attempt to connect comes at most a second after the failed one: wait for it.
      while (!(await store.set('k', 1, 60_000))) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await store.get('k')).toBe(1);
      await redis.stop();
      expect(await store.get('k')).toBeUndefined();
    } finally {
      await store.disconnect();
      await redis?.stop();
    }
  });
});
