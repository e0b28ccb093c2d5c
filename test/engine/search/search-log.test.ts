/**
 * The search log while another connection holds the write lock (as the writer thread does while it
 * commits a batch of sources): searches are logged once the lock is free, and a logged search
 * waiting for it never holds up the searches after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { FROB_GUIDES } from '../../contract/fixtures.js';

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
