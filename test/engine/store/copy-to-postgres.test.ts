/**
 * Moving up: an embedded data directory, used for real (a guru with a key, sources, a session,
 * a vote, a deleted guru), copied into an empty PostgreSQL database on a throwaway server.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EndUserRecords } from '../../../src/engine/end-users/records.js';
import { GuruRepository } from '../../../src/engine/gurus/repository.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { copyToPostgres, DataDirInUseError, migrateDataDir, TargetNotEmptyError, type CopyProgress } from '../../../src/engine/store/copy-to-postgres.js';
import { DATABASE_FILE } from '../../../src/engine/store/database.js';
import { openStore } from '../../../src/engine/store/open-store.js';
import type { Store } from '../../../src/engine/store/sql.js';
import { openRecordStore, RECORDS_FILE } from '../../../src/state/keyv.js';
import { freshDatabase } from '../../support/postgres-databases.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

let postgres: TestPostgres;
let dataDir: string;
let key: string;
let source: Database.Database;

beforeAll(async () => {
  postgres = await startPostgres();
  dataDir = mkdtempSync(join(tmpdir(), 'guru-copy-'));
  const engine = await LocalEngine.open({ dataDir });
  try {
    key = (await engine.createGuru({ slug: 'docs', name: 'Docs' })).api_key;
    await engine.createGuru({ slug: 'gone' });
    await engine.createDataSources('docs', {
      text_sources: [
        { name: 'Ports', content: '# Ports\n\nThe server listens on port 8080 unless GURU_PORT names another.' },
        { name: 'Keys', content: '# Keys\n\nEvery guru has API keys; a key is shown once, when it is made.' },
      ],
    });
    await engine.whenIdle();
    const answer = await engine.ask('docs', { question: 'Which port does the server listen on?', fetch_existing: false });
    await engine.recordVote('docs', { content_slug: answer.slug, vote_type: 'upvote' });
    await engine.upsertProfiles('docs', {
      users: [
        { external_user_id: 'ada', memory: { plan: 'team' } },
        { external_user_id: 'bob', memory: { plan: 'solo' } },
      ],
    });
    const records = openRecordStore(dataDir);
    try {
      await new EndUserRecords(records).remember('docs', 'ada', ['runs PostgreSQL 15', 'deploys with Docker'], new Date().toISOString());
    } finally {
      await records.close();
    }
    await engine.createGuru({ slug: 'newest' });
    await engine.deleteGuru('newest');
  } finally {
    await engine.close();
  }
  source = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
}, 180_000);

afterAll(async () => {
  source?.close();
  await postgres?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A child's script: opens the database file named by its argument, reads it, says so and waits. */
const HOLD_OPEN = `
const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
const db = new Database(process.argv[1], { fileMustExist: true });
db.prepare('SELECT count(*) FROM gurus').get();
process.stdout.write('open\\n');
setInterval(() => {}, 60000);
`;

const countOf = (table: string): number => (source.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('copyToPostgres', () => {
  it('copies every row with its id, keys keep working, and new ids go on above every id ever used', async () => {
    const store: Store = await openStore({ dataDir, databaseUrl: await freshDatabase(postgres) });
    try {
      const seen: CopyProgress[] = [];
      const copied = await copyToPostgres(source, store, { onProgress: (progress) => seen.push(progress) });
      const rows = new Map(copied.map(({ table, rows }) => [table, rows]));
      for (const table of ['gurus', 'api_keys', 'data_sources', 'chunks', 'binges', 'questions', 'links']) {
        expect(rows.get(table), table).toBe(countOf(table));
        expect((await store.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))?.n, table).toBe(countOf(table));
      }
      expect(rows.get('questions')).toBeGreaterThan(0);
      expect((await store.get<{ user_vote: string }>('SELECT user_vote FROM questions'))?.user_vote).toBe('upvote');
      // Parents before children: no foreign key failed, and progress names each table as it goes.
      expect(seen.at(-1)).toMatchObject({ copied: seen.at(-1)?.total });
      expect(copied.findIndex(({ table }) => table === 'gurus')).toBeLessThan(copied.findIndex(({ table }) => table === 'api_keys'));

      const gurus = new GuruRepository(store);
      expect((await gurus.findByKey(key))?.slug).toBe('docs');
      const highest = (source.prepare(`SELECT max(id) AS n FROM gurus`).get() as { n: number }).n;
      const deleted = (source.prepare(`SELECT max_id AS n FROM retired_ids WHERE tbl = 'gurus'`).get() as { n: number }).n;
      expect(deleted).toBeGreaterThan(highest);
      const next = await gurus.create('after', 'After', new Date().toISOString());
      expect(next?.id).toBe(deleted + 1);
    } finally {
      await store.close();
    }
  });

  it("copies end users' profiles and memories (endusers.sqlite) in the same transaction, counted, and the engine on PostgreSQL reads them", async () => {
    const databaseUrl = await freshDatabase(postgres);
    // The copy wants the file to itself: this file's reading connection steps aside.
    source.close();
    const copied = await migrateDataDir({ dataDir, databaseUrl }).finally(() => (source = new Database(join(dataDir, DATABASE_FILE), { readonly: true })));
    // Two profiles and one list of memories.
    expect(copied.find(({ table }) => table === 'end_user_records')).toEqual({ table: 'end_user_records', rows: 3 });
    const engine = await LocalEngine.open({ dataDir, databaseUrl });
    try {
      const { data } = await engine.getEndUserData('docs', 'ada', { limit: 10, offset: 0 });
      expect(data.profile).toMatchObject([{ profile_data: { plan: 'team' } }]);
      expect(data.memories).toEqual([{ memory: 'runs PostgreSQL 15' }, { memory: 'deploys with Docker' }]);
      expect((await engine.getEndUserData('docs', 'bob', { limit: 10, offset: 0 })).data.profile).toMatchObject([{ profile_data: { plan: 'solo' } }]);
    } finally {
      await engine.close();
    }
  });

  it('refuses to copy while another process has the database open, and copies once it has stopped', async () => {
    const databaseUrl = await freshDatabase(postgres);
    const gurus = countOf('gurus');
    source.close();
    // A process that keeps the file open without writing, as an idle `serve` does.
    const holder = spawn(process.execPath, ['-e', HOLD_OPEN, join(dataDir, DATABASE_FILE)], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await once(holder.stdout, 'data');
      const refused = migrateDataDir({ dataDir, databaseUrl });
      await expect(refused).rejects.toBeInstanceOf(DataDirInUseError);
      await expect(refused).rejects.toThrow(`Another process has ${join(dataDir, DATABASE_FILE)} open`);
      const store = await openStore({ dataDir, databaseUrl });
      try {
        expect((await store.get<{ n: number }>('SELECT count(*) AS n FROM gurus'))?.n).toBe(0);
      } finally {
        await store.close();
      }
      const exited = once(holder, 'exit');
      holder.kill();
      await exited;
      expect((await migrateDataDir({ dataDir, databaseUrl })).find(({ table }) => table === 'gurus')?.rows).toBe(gurus);
    } finally {
      holder.kill();
      source = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
    }
  });

  it('refuses a database that already holds gurus, and keeps nothing of a copy that fails', async () => {
    const store = await openStore({ dataDir, databaseUrl: await freshDatabase(postgres) });
    const records = new Database(join(dataDir, RECORDS_FILE), { readonly: true });
    try {
      const failing = copyToPostgres(source, store, {
        records,
        rebuild: async () => {
          throw new Error('the full-text rebuild failed');
        },
      });
      await expect(failing).rejects.toThrow('the full-text rebuild failed');
      for (const table of ['gurus', 'api_keys', 'chunks', 'questions', 'retired_ids', 'end_user_records']) {
        expect((await store.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))?.n, table).toBe(0);
      }
      await copyToPostgres(source, store);
      await expect(copyToPostgres(source, store)).rejects.toBeInstanceOf(TargetNotEmptyError);
    } finally {
      records.close();
      await store.close();
    }
  });
});
