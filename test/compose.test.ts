import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRateLimiter } from '../src/compose.js';
import { Config } from '../src/config.js';
import { silentLogger } from '../src/log.js';

describe('openRateLimiter', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-compose-'));
  });

  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('limits per end user and key at the configured rate, in the data directory’s state store', async () => {
    const limiter = await openRateLimiter(Config.parse({ dataDir, rateLimitPerMinute: 1 }), silentLogger);
    try {
      const subject = { guru: 'docs', apiKey: 'k', externalUserId: 'alice' };
      expect(await limiter.consume(subject)).toEqual({ allowed: true });
      expect((await limiter.consume(subject)).allowed).toBe(false);
      expect((await limiter.consume({ ...subject, externalUserId: 'bob' })).allowed).toBe(true);
      expect(existsSync(join(dataDir, 'state.sqlite'))).toBe(true);
    } finally {
      await limiter.close();
    }
  });

  it('at 0 lets everything through and opens no store', async () => {
    const limiter = await openRateLimiter(Config.parse({ dataDir, rateLimitPerMinute: 0 }), silentLogger);
    for (let i = 0; i < 50; i++) expect(await limiter.consume({ guru: 'docs', apiKey: 'k' })).toEqual({ allowed: true });
    await limiter.close();
    expect(existsSync(join(dataDir, 'state.sqlite'))).toBe(false);
  });
});
