/**
 * The search log while another connection holds the write lock (as the writer thread does while it
 * commits a batch of sources): searches are logged once the lock is free, and a logged search
 * waiting for it never holds up the searches after it. On PostgreSQL, the same with a lock the
 * insert must wait for (the guru's row), and a write that fails reported, not thrown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { PostgresSql } from '../../../src/engine/store/postgres-sql.js';
import { silentLogger } from '../../../src/log.js';
import { FROB_GUIDES } from '../../contract/fixtures.js';
import { freshDatabase } from '../../support/postgres-databases.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

const USER = 'user-search-log';

describe('search log', () => {
  let dir: string;
  let engine: LocalEngine;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-search-log-'));
    engine = await LocalEngine.open({ dataDir: dir });
    await engine.createGuru({ slug: 'frob', name: 'Frobnicator' });
    await engine.createDataSources('frob', FROB_GUIDES);
    await engine.whenIdle();
  });

  afterEach(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers searches while a logged search waits for the write lock, and logs them all once it is free', async () => {
    const writer = new Database(join(dir, 'guru.sqlite'));
    writer.prepare('BEGIN IMMEDIATE').run();
    const lockedAt = Date.now();
    try {
      await engine.semanticSearch('frob', { question: 'install', external_user_id: USER });
      // The first search's log entry is tried (and found the lock taken) meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const found = await engine.semanticSearch('frob', { question: 'configure', external_user_id: USER });
      expect(found.total_sources).toBeGreaterThan(0);
      // Neither waited for the lock (busy_timeout is 5 s), and nothing is logged yet.
      expect(Date.now() - lockedAt).toBeLessThan(4_000);
      expect(writer.prepare('SELECT count(*) AS n FROM searches').get()).toEqual({ n: 0 });
    } finally {
      writer.prepare('COMMIT').run();
      writer.close();
    }
    const data = await engine.getEndUserData('frob', USER, { limit: 10, offset: 0 });
    expect(data.data.searches.map((search) => search.query)).toEqual(['install', 'configure']);
  });
});

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('search log on PostgreSQL', () => {
  let postgres: TestPostgres;
  let databaseUrl: string;
  let dataDir: string;
  let engine: LocalEngine;
  let other: PostgresSql;
  const errors: string[] = [];
  const logger = { ...silentLogger, error: (message: string) => void errors.push(message) };

  beforeAll(async () => {
    postgres = await startPostgres();
  }, 120_000);

  afterAll(async () => {
    await postgres?.stop();
  });

  beforeEach(async () => {
    databaseUrl = await freshDatabase(postgres);
    dataDir = mkdtempSync(join(tmpdir(), 'guru-search-log-pg-'));
    engine = await LocalEngine.open({ dataDir, databaseUrl, logger });
    other = PostgresSql.connect({ url: databaseUrl, poolSize: 2 });
    await engine.createGuru({ slug: 'frob', name: 'Frobnicator' });
    await engine.createDataSources('frob', FROB_GUIDES);
    await engine.whenIdle();
    errors.length = 0;
  });

  afterEach(async () => {
    await engine.close();
    await other.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const logged = async () => (await other.all<{ query: string }>('SELECT query FROM searches ORDER BY id')).map((row) => row.query);

  it('writes each search in the background, with nobody reading them', async () => {
    await engine.semanticSearch('frob', { question: 'install', external_user_id: USER });
    await engine.semanticSearch('frob', { question: 'configure', external_user_id: USER });
    await expect.poll(logged, { timeout: 30_000 }).toEqual(['install', 'configure']);
    expect(errors).toEqual([]);
  });

  it('answers searches while the log cannot be written (the guru row locked), and logs them all once it can', async () => {
    const release = signal();
    const held = signal();
    // As deleting the guru would: its row locked, so an insert referring to it waits for the commit.
    const locker = other.transaction(async (tx) => {
      await tx.get("SELECT id FROM gurus WHERE slug = 'frob' FOR UPDATE");
      held.resolve();
      await release.promise;
    });
    await held.promise;
    try {
      await engine.semanticSearch('frob', { question: 'install', external_user_id: USER });
      // The first search's insert now waits for the lock in the background (PostgreSQL's own wait).
      await expect.poll(async () => (await other.get<{ n: number }>("SELECT count(*) AS n FROM pg_locks WHERE NOT granted"))?.n, { timeout: 30_000 }).toBeGreaterThan(0);
      const found = await engine.semanticSearch('frob', { question: 'configure', external_user_id: USER });
      expect(found.total_sources).toBeGreaterThan(0);
      expect(await logged()).toEqual([]);
    } finally {
      release.resolve();
      await locker;
    }
    const data = await engine.getEndUserData('frob', USER, { limit: 10, offset: 0 });
    expect(data.data.searches.map((search) => search.query)).toEqual(['install', 'configure']);
    expect(errors).toEqual([]);
  });

  it('reports a log it cannot write, and goes on logging the next searches', async () => {
    // A search whose guru is gone by the time its entry is written (a foreign key refuses it).
    const guru = await other.get<{ id: number }>("SELECT id FROM gurus WHERE slug = 'frob'");
    const release = signal();
    const held = signal();
    const deleter = other.transaction(async (tx) => {
      await tx.run('DELETE FROM gurus WHERE id = ?', [guru!.id]);
      held.resolve();
      await release.promise;
    });
    await held.promise;
    await engine.semanticSearch('frob', { question: 'install', external_user_id: USER });
    await expect.poll(async () => (await other.get<{ n: number }>('SELECT count(*) AS n FROM pg_locks WHERE NOT granted'))?.n, { timeout: 30_000 }).toBeGreaterThan(0);
    release.resolve();
    await deleter;
    await expect.poll(() => errors, { timeout: 30_000 }).toEqual(['could not log searches']);
    await engine.createGuru({ slug: 'next' });
    await engine.createDataSources('next', FROB_GUIDES);
    await engine.whenIdle();
    await engine.semanticSearch('next', { question: 'configure', external_user_id: USER });
    await expect.poll(logged, { timeout: 30_000 }).toEqual(['configure']);
  });
});
