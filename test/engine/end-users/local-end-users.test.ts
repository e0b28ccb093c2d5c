/**
 * What only the embedded engine can show about end users: its record store
 * failing for real (a corrupt file), erased data gone from the bytes of the
 * database files, and tombstones that keep nothing. The behaviour both
 * backends share is in test/contract/end-users-contract.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRateLimiter } from '../../../src/compose.js';
import { Config } from '../../../src/config.js';
import { EndUserRecords } from '../../../src/engine/end-users/records.js';
import { silentLogger } from '../../../src/log.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { openRecordStore, RECORDS_FILE } from '../../../src/state/keyv.js';
import { FROB_GUIDES } from '../../contract/fixtures.js';

const USER = 'user-7f3e9d2a-secret';
/** Text only this end user wrote; searched for in the raw bytes of every database file. */
const MARKERS = [USER, 'zanzibarquux', 'Quetzalcoatl-plan', 'runs PostgreSQL 15 on Hurdlebox', 'Xylophage-overflow'];

describe('LocalEndUsers', () => {
  let dir: string;
  let engine: LocalEngine;

  const open = () => LocalEngine.open({ dataDir: dir, clock: () => new Date('2026-11-20T12:00:00Z') });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-endusers-'));
    engine = await open();
    await engine.createGuru({ slug: 'frob', name: 'Frobnicator' });
    await engine.createDataSources('frob', FROB_GUIDES);
    await engine.whenIdle();
  });

  afterEach(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Memories are written by answers once a language model is wired in; until then, through the record store. */
  async function remember(guru: string, externalUserId: string, memories: string[]) {
    const store = openRecordStore(dir);
    try {
      await new EndUserRecords(store).remember(guru, externalUserId, memories, '2026-11-20T12:00:00.000Z');
    } finally {
      await store.close();
    }
  }

  /** Every byte of the engine's files on disk: the database, the record store and their write-ahead logs. */
  function fileBytes(): string {
    return [`guru.sqlite`, RECORDS_FILE]
      .flatMap((file) => [file, `${file}-wal`, `${file}-journal`])
      .map((file) => join(dir, file))
      .filter((path) => existsSync(path))
      .map((path) => readFileSync(path).toString('latin1'))
      .join('\n');
  }

  async function holdDataOf(externalUserId: string) {
    const answered = await engine.ask('frob', {
      fetch_existing: false,
      question: 'How do I install frobnicator with npm?',
      external_user_id: externalUserId,
      log_files: [{ name: 'install.log', data: 'npm ERR! frobnicator: Xylophage-overflow while installing\n' }],
    });
    await engine.ask('frob', { fetch_existing: false, question: 'What about the zanzibarquux?', session_id: answered.session_id, external_user_id: externalUserId });
    await engine.semanticSearch('frob', { question: 'zanzibarquux installer', labels: ['Text'], external_user_id: externalUserId });
    await engine.upsertProfiles('frob', { users: [{ external_user_id: externalUserId, memory: { plan: 'Quetzalcoatl-plan' } }] });
    await remember('frob', externalUserId, ['runs PostgreSQL 15 on Hurdlebox']);
    return answered;
  }

  it('reads memories written through the record store, on the first page only', async () => {
    await holdDataOf(USER);
    // Like the database, the record store is its user's alone.
    expect(statSync(join(dir, RECORDS_FILE)).mode & 0o077).toBe(0);
    const first = await engine.getEndUserData('frob', USER, { limit: 1, offset: 0 });
    expect(first.data.memories).toEqual([{ memory: 'runs PostgreSQL 15 on Hurdlebox' }]);
    const second = await engine.getEndUserData('frob', USER, { limit: 1, offset: 1 });
    expect(second.data.memories).toEqual([]);
    expect(second.data.profile).toEqual(first.data.profile);
  });

  it('fails with 500 and returns nothing when the memory store file is corrupt, while the rest of the engine works', async () => {
    await holdDataOf(USER);
    await engine.close();
    for (const suffix of ['-wal', '-shm']) rmSync(join(dir, `${RECORDS_FILE}${suffix}`), { force: true });
    writeFileSync(join(dir, RECORDS_FILE), Buffer.alloc(8192, 'this is not a database '));
    engine = await open();

    await expect(engine.getEndUserData('frob', USER, { limit: 100, offset: 0 })).rejects.toMatchObject({
      status: 500,
      field: 'msg',
      message: 'Memory store could not be read',
    });
    // A later page needs the profile too: no page is served without the store.
    await expect(engine.getEndUserData('frob', USER, { limit: 100, offset: 5 })).rejects.toMatchObject({ status: 500 });
    await expect(engine.upsertProfiles('frob', { users: [{ external_user_id: USER, memory: { a: 1 } }] })).rejects.toMatchObject({
      status: 500,
      field: 'error',
      message: 'Internal server error while saving profiles',
    });
    expect((await engine.semanticSearch('frob', { question: 'install' })).total_sources).toBeGreaterThan(0);
  });

  it('erases the end user from the bytes of every database file, not only from the tables', async () => {
    const answered = await holdDataOf(USER);
    const before = fileBytes();
    for (const marker of MARKERS) expect(before).toContain(marker);

    const erased = await engine.eraseEndUserData('frob', USER);
    expect(erased).toEqual({
      external_user_id: USER,
      deleted: { questions: 1, rejected_questions: 1, conversations: 1, searches: 1, profile: 1, memories: 1, attachments: 1 },
    });

    const after = fileBytes();
    for (const marker of MARKERS) expect(after).not.toContain(marker);
    // The session is a tombstone now: a delete says it is already deleted; it keeps no text and no end user.
    await expect(engine.deleteSession('frob', answered.session_id)).rejects.toMatchObject({ message: 'Session is already deleted' });
    const db = new Database(join(dir, 'guru.sqlite'), { readonly: true });
    try {
      expect(db.prepare('SELECT external_user_id FROM binges WHERE id = ?').get(answered.session_id)).toEqual({ external_user_id: null });
      expect(db.prepare('SELECT count(*) AS n FROM questions WHERE binge_id = ?').get(answered.session_id)).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  it("drops the end user's rate-limit window that a server on the data directory keeps, whoever asks for the erase", async () => {
    const limiter = await openRateLimiter(Config.parse({ dataDir: dir, rateLimitPerMinute: 1 }), silentLogger);
    try {
      const subject = { guru: 'frob', apiKey: 'a key', externalUserId: USER };
      expect((await limiter.consume(subject)).allowed).toBe(true);
      expect((await limiter.consume(subject)).allowed).toBe(false);
      await engine.eraseEndUserData('frob', USER);
      expect((await limiter.consume(subject)).allowed).toBe(true);
    } finally {
      await limiter.close();
    }
  });

  it('answers a search while another connection holds the write lock, and logs it once the lock is free', async () => {
    // As the writer thread holds it while it commits a batch of sources.
    const writer = new Database(join(dir, 'guru.sqlite'));
    writer.prepare('BEGIN IMMEDIATE').run();
    const lockedAt = Date.now();
    try {
      const found = await engine.semanticSearch('frob', { question: 'install', external_user_id: USER });
      expect(found.total_sources).toBeGreaterThan(0);
      // It did not wait for the lock (busy_timeout is 5 s), and nothing is logged yet.
      expect(Date.now() - lockedAt).toBeLessThan(4_000);
      expect(writer.prepare('SELECT count(*) AS n FROM searches').get()).toEqual({ n: 0 });
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      writer.prepare('COMMIT').run();
      writer.close();
    }
    await engine.semanticSearch('frob', { question: 'configure', external_user_id: USER });
    // Read at once: the end user's data shows both, the one kept waiting and the one just asked.
    const data = await engine.getEndUserData('frob', USER, { limit: 10, offset: 0 });
    expect(data.data.searches.map((search) => search.query)).toEqual(['install', 'configure']);
    await engine.semanticSearch('frob', { question: 'upgrade', external_user_id: USER });
    expect((await engine.eraseEndUserData('frob', USER)).deleted.searches).toBe(3);
  });

  it("forgets the end user's answer-progress line, and only theirs", async () => {
    await holdDataOf(USER);
    await holdDataOf('someone-else');
    expect((await engine.answerProgress('frob', { external_user_id: USER })).status_text).toBe('Writing the answer…');
    await engine.eraseEndUserData('frob', USER);
    expect(await engine.answerProgress('frob', { external_user_id: USER })).toEqual({ status_text: '', updated_at: null });
    expect((await engine.answerProgress('frob', { external_user_id: 'someone-else' })).status_text).toBe('Writing the answer…');
  });

  it('clears the end user from the tombstones of sessions deleted before the erase', async () => {
    const answered = await engine.ask('frob', { fetch_existing: false, question: 'How do I install frobnicator?', external_user_id: USER });
    await engine.deleteSession('frob', answered.session_id);
    expect(fileBytes()).toContain(USER);
    const erased = await engine.eraseEndUserData('frob', USER);
    expect(erased.deleted).toMatchObject({ questions: 0, conversations: 0 });
    expect(fileBytes()).not.toContain(USER);
  });

  it("keeps one guru's memories of an end user from another's, on reading and erasing", async () => {
    await engine.createGuru({ slug: 'quux' });
    await remember('frob', USER, ['uses the frob CLI']);
    await remember('quux', USER, ['uses the quux API']);
    expect((await engine.getEndUserData('quux', USER, { limit: 10, offset: 0 })).data.memories).toEqual([{ memory: 'uses the quux API' }]);
    expect((await engine.eraseEndUserData('quux', USER)).deleted.memories).toBe(1);
    expect((await engine.getEndUserData('frob', USER, { limit: 10, offset: 0 })).data.memories).toEqual([{ memory: 'uses the frob CLI' }]);
  });
});
