import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type Keyv from 'keyv';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { openStateStore } from '../../src/state/keyv.js';
import { createRateLimiter } from '../../src/state/rate-limiter.js';

describe('openStateStore', () => {
  const dirs: string[] = [];
  const stores: Keyv[] = [];

  const open = async (dataDir: string, namespace: string, logger = createLogger('error', () => {})) => {
    const store = await openStateStore({ dataDir }, namespace, logger);
    stores.push(store);
    return store;
  };
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'guru-state-'));
    dirs.push(dir);
    return dir;
  };

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.disconnect()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps values in <dataDir>/state.sqlite, in WAL mode, creating the directory', async () => {
    const dataDir = join(tempDir(), 'nested', 'data');
    const store = await open(dataDir, 'test');
    await store.set('answer', { n: 42 });
    expect(await store.get('answer')).toEqual({ n: 42 });

    const db = new Database(join(dataDir, 'state.sqlite'), { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });

  it('shares values between instances on one directory and separates namespaces', async () => {
    const dataDir = tempDir();
    const first = await open(dataDir, 'progress');
    const second = await open(dataDir, 'progress');
    const other = await open(dataDir, 'rate-limit');

    await first.set('user-1', 'searching');
    expect(await second.get('user-1')).toBe('searching');
    expect(await other.get('user-1')).toBeUndefined();
  });

  it('answers statements beyond those it keeps prepared, and its connection closes with it', async () => {
    const dataDir = tempDir();
    const store = await open(dataDir, 'many');
    // getMany and setMany send a statement per list length: more than the store keeps prepared.
    for (let size = 1; size <= 40; size += 1) {
      const keys = Array.from({ length: size }, (_, i) => `k${i}`);
      await store.setMany(keys.map((key, i) => ({ key, value: i + size })));
      expect(await store.getMany(keys)).toEqual(keys.map((_, i) => i + size));
    }
    await store.disconnect();
    // Without a connection left open, a writer takes the file's lock at once.
    const db = new Database(join(dataDir, 'state.sqlite'), { timeout: 0 });
    try {
      expect(db.pragma('wal_checkpoint(TRUNCATE)', { simple: true })).toBe(0);
    } finally {
      db.close();
    }
  });

  it('forgets values after their time to live', async () => {
    const store = await open(tempDir(), 'ttl');
    await store.set('short', 'lived', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.get('short')).toBeUndefined();
  });

  it('logs a failing store and reads it as a miss instead of throwing', async () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, 'state.sqlite'));
    const lines: string[] = [];
    const store = await open(dataDir, 'broken', createLogger('warn', (line) => lines.push(line)));

    expect(await store.get('k')).toBeUndefined();
    expect(await store.set('k', 1)).toBe(false);
    expect(lines.some((line) => line.includes('state store failed') && line.includes('namespace="broken"'))).toBe(true);

    const limiter = createRateLimiter({ store, limitPerMinute: 1 });
    const subject = { guru: 'docs', apiKey: 'k' };
    expect(await limiter.consume(subject)).toEqual({ allowed: true });
    expect(await limiter.consume(subject)).toEqual({ allowed: true });
  });
});
