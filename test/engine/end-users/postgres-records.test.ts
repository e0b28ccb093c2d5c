/**
 * End users' profiles and memories on the PostgreSQL store (a throwaway server on loopback): kept
 * in its table end_user_records, not in the data directory; read, replaced and erased through the
 * engine; gone with their guru; shared by two engines on one database; and a store that fails
 * fails the request instead of reading as "nothing held".
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Keyv from 'keyv';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EndUserRecords } from '../../../src/engine/end-users/records.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { openStore } from '../../../src/engine/store/open-store.js';
import type { Store } from '../../../src/engine/store/sql.js';
import { KeyvSqlStore } from '../../../src/state/keyv-sql.js';
import { openSqlRecordStore, RECORDS_FILE } from '../../../src/state/keyv.js';
import { freshDatabase } from '../../support/postgres-databases.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

const USER = 'user-7f3e9d2a';
const NOW = '2026-11-20T12:00:00.000Z';

let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 180_000);

afterAll(async () => {
  await postgres?.stop();
});

describe("end users' records on the PostgreSQL store", () => {
  let dir: string;
  let databaseUrl: string;
  let engine: LocalEngine;
  /** Another process's view of the database: what is really in the table. */
  let store: Store;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-pg-records-'));
    databaseUrl = await freshDatabase(postgres);
    engine = await LocalEngine.open({ dataDir: dir, databaseUrl, clock: () => new Date(NOW) });
    await engine.createGuru({ slug: 'frob', name: 'Frobnicator' });
    store = await openStore({ dataDir: dir, databaseUrl });
  });

  afterEach(async () => {
    await engine.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Memories are written by answers with a language model; here through the record store, as another process would. */
  async function remember(guru: string, externalUserId: string, memories: string[]) {
    await new EndUserRecords(openSqlRecordStore(store)).remember(guru, externalUserId, memories, NOW);
  }

  const rows = () => store.all<{ namespace: string; key: string }>('SELECT namespace, key FROM end_user_records ORDER BY namespace, key');

  it('keeps profiles and memories in PostgreSQL: upserted, read, replaced and erased through the engine', async () => {
    await engine.upsertProfiles('frob', { users: [{ external_user_id: USER, memory: { plan: 'gold' } }] });
    await remember('frob', USER, ['runs PostgreSQL 15', 'uses npm']);
    expect(await rows()).toEqual([
      { namespace: 'memories:frob', key: USER },
      { namespace: 'profiles:frob', key: USER },
    ]);
    // Nothing of them in the data directory.
    expect(existsSync(join(dir, RECORDS_FILE))).toBe(false);

    let data = (await engine.getEndUserData('frob', USER, { limit: 10, offset: 0 })).data;
    expect(data.profile).toEqual([{ profile_data: { plan: 'gold' }, created_at: NOW, updated_at: NOW }]);
    expect(data.memories).toEqual([{ memory: 'runs PostgreSQL 15' }, { memory: 'uses npm' }]);

    await engine.upsertProfiles('frob', { users: [{ external_user_id: USER, memory: { plan: 'platinum' } }, { external_user_id: 'other', memory: { a: 1 } }] });
    data = (await engine.getEndUserData('frob', USER, { limit: 10, offset: 0 })).data;
    expect(data.profile).toEqual([{ profile_data: { plan: 'platinum' }, created_at: NOW, updated_at: NOW }]);

    const vacuumed = async () =>
      (await store.get<{ at: string | null }>("SELECT last_vacuum AS at FROM pg_stat_user_tables WHERE relname = 'end_user_records'"))?.at ?? null;
    expect(await vacuumed()).toBeNull();
    const erased = await engine.eraseEndUserData('frob', USER);
    expect(erased.deleted).toMatchObject({ profile: 1, memories: 2 });
    // The erased rows' space is freed at once (VACUUM), not left for autovacuum.
    expect(await vacuumed()).not.toBeNull();
    expect(await rows()).toEqual([{ namespace: 'profiles:frob', key: 'other' }]);
    data = (await engine.getEndUserData('frob', USER, { limit: 10, offset: 0 })).data;
    expect(data.profile).toEqual([]);
    expect(data.memories).toEqual([]);
  });

  it("removes a guru's records with the guru, and only that guru's", async () => {
    await engine.createGuru({ slug: 'kept', name: 'Kept' });
    for (const guru of ['frob', 'kept']) {
      await engine.upsertProfiles(guru, { users: [{ external_user_id: USER, memory: { guru } }] });
      await remember(guru, USER, [`a fact in ${guru}`]);
    }
    await engine.deleteGuru('frob');
    expect(await rows()).toEqual([
      { namespace: 'memories:kept', key: USER },
      { namespace: 'profiles:kept', key: USER },
    ]);
    // A new guru of the same name starts with nothing.
    await engine.createGuru({ slug: 'frob', name: 'Frobnicator again' });
    expect((await engine.getEndUserData('frob', USER, { limit: 10, offset: 0 })).data).toMatchObject({ profile: [], memories: [] });
  });

  it('deletes a guru and its records together: when the records cannot go, the guru stays', async () => {
    await engine.upsertProfiles('frob', { users: [{ external_user_id: USER, memory: { plan: 'gold' } }] });
    await store.exec('ALTER TABLE end_user_records RENAME TO end_user_records_away');
    try {
      await expect(engine.deleteGuru('frob')).rejects.toThrow(/end_user_records/);
    } finally {
      await store.exec('ALTER TABLE end_user_records_away RENAME TO end_user_records');
    }
    expect((await engine.getEndUserData('frob', USER, { limit: 10, offset: 0 })).data.profile).toMatchObject([{ profile_data: { plan: 'gold' } }]);
    await engine.deleteGuru('frob');
    await engine.createGuru({ slug: 'frob', name: 'Frobnicator again' });
    expect((await engine.getEndUserData('frob', USER, { limit: 10, offset: 0 })).data.profile).toEqual([]);
    expect(await rows()).toEqual([]);
  });

  it('shows two engines on one database the same records', async () => {
    const otherDir = mkdtempSync(join(tmpdir(), 'guru-pg-records-2-'));
    const second = await LocalEngine.open({ dataDir: otherDir, databaseUrl });
    try {
      await engine.upsertProfiles('frob', { users: [{ external_user_id: USER, memory: { written: 'by the first' } }] });
      expect((await second.getEndUserData('frob', USER, { limit: 10, offset: 0 })).data.profile).toMatchObject([{ profile_data: { written: 'by the first' } }]);
      await second.upsertProfiles('frob', { users: [{ external_user_id: USER, memory: { written: 'by the second' } }] });
      expect((await engine.getEndUserData('frob', USER, { limit: 10, offset: 0 })).data.profile).toMatchObject([{ profile_data: { written: 'by the second' } }]);
      await second.eraseEndUserData('frob', USER);
      expect((await engine.getEndUserData('frob', USER, { limit: 10, offset: 0 })).data.profile).toEqual([]);
    } finally {
      await second.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('keeps every fact that answers in two processes remember for one end user at once', async () => {
    const other = await openStore({ dataDir: dir, databaseUrl });
    try {
      const facts = Array.from({ length: 12 }, (_, n) => `fact ${n}`);
      // Each reads the list and writes it back whole: unheld, most writes would drop the others' facts.
      await Promise.all(facts.map((fact, n) => new EndUserRecords(openSqlRecordStore(n % 2 === 0 ? store : other)).remember('frob', USER, [fact], NOW)));
      const { memories } = (await engine.getEndUserData('frob', USER, { limit: 10, offset: 0 })).data;
      expect(memories.map(({ memory }) => memory).sort()).toEqual([...facts].sort());
    } finally {
      await other.close();
    }
  });

  it('fails with 500 when the table cannot be read, never as "nothing held", and works again once it can', async () => {
    await engine.upsertProfiles('frob', { users: [{ external_user_id: USER, memory: { plan: 'gold' } }] });
    await store.exec('ALTER TABLE end_user_records RENAME TO end_user_records_away');
    try {
      await expect(engine.getEndUserData('frob', USER, { limit: 10, offset: 0 })).rejects.toMatchObject({ status: 500, message: 'Memory store could not be read' });
      await expect(engine.upsertProfiles('frob', { users: [{ external_user_id: USER, memory: { a: 1 } }] })).rejects.toMatchObject({
        status: 500,
        message: 'Internal server error while saving profiles',
      });
      await expect(engine.eraseEndUserData('frob', USER)).rejects.toThrow(/end_user_records/);
    } finally {
      await store.exec('ALTER TABLE end_user_records_away RENAME TO end_user_records');
    }
    expect((await engine.getEndUserData('frob', USER, { limit: 10, offset: 0 })).data.profile).toMatchObject([{ profile_data: { plan: 'gold' } }]);
  });
});

describe('the Keyv adapter over the store port', () => {
  it('keeps namespaces apart, iterates and clears one, and refuses an expiry', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guru-pg-keyv-'));
    const store = await openStore({ dataDir: dir, databaseUrl: await freshDatabase(postgres) });
    try {
      const a = new Keyv({ store: new KeyvSqlStore(store), namespace: 'profiles:a' });
      const b = new Keyv({ store: new KeyvSqlStore(store), namespace: 'profiles:b' });
      a.throwOnEmitError = true;
      // More keys than one page of the iterator, and a key that looks like a namespace.
      const keys = Array.from({ length: 250 }, (_, n) => `user-${String(n).padStart(3, '0')}`);
      expect(await a.setMany(keys.map((key) => ({ key, value: { n: key } })))).toEqual(keys.map(() => true));
      await b.set('profiles:a:user-000', { other: true });
      expect(await a.get('user-007')).toEqual({ n: 'user-007' });
      expect(await a.getMany(['user-001', 'nobody'])).toEqual([{ n: 'user-001' }, undefined]);
      expect(await b.get('user-007')).toBeUndefined();
      const seen: string[] = [];
      for await (const [key] of a.iterator()) seen.push(key as string);
      expect(seen).toEqual(keys);
      expect(await a.deleteMany(['user-001', 'nobody'])).toEqual([true, false]);
      await a.clear();
      expect(await a.get('user-007')).toBeUndefined();
      expect(await b.get('profiles:a:user-000')).toEqual({ other: true });
      await expect(a.set('user-1', { n: 1 }, 60_000)).rejects.toThrow('durable records never expire');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
