/**
 * The PostgreSQL store's schema (src/engine/store/postgres-migrations.ts) against the SQLite one
 * after every migration of migrations.ts, on a throwaway PostgreSQL 15 on loopback: the same
 * tables, columns, NOT NULLs, unique keys and foreign keys, so that one statement runs on both;
 * and its migration, applied once when two processes start at once.
 */
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_URL_CHARS } from '../../../src/core/schemas.js';
import { GuruRepository } from '../../../src/engine/gurus/repository.js';
import { nextIdOf } from '../../../src/engine/store/ids.js';
import { openDatabase, type Db } from '../../../src/engine/store/database.js';
import { MIGRATIONS, NewerSchemaError } from '../../../src/engine/store/migrations.js';
import { MIGRATION_LOCK, migratePostgres, POSTGRES_MIGRATIONS, POSTGRES_ONLY_TABLES } from '../../../src/engine/store/postgres-migrations.js';
import { PostgresSql } from '../../../src/engine/store/postgres-sql.js';
import type { Sql } from '../../../src/engine/store/sql.js';
import { openRecordStore, RECORDS_FILE } from '../../../src/state/keyv.js';
import { freshDatabase } from '../../support/postgres-databases.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

let postgres: TestPostgres;
let dir: string;
let sqlite: Db;
/** A database migrated once, for the tests that only read the schema. */
let migrated: PostgresSql;

beforeAll(async () => {
  postgres = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), 'guru-pg-schema-'));
  sqlite = openDatabase(dir);
  migrated = PostgresSql.connect({ url: await freshDatabase(postgres), poolSize: 4 });
  await migratePostgres(migrated);
}, 180_000);

afterAll(async () => {
  await migrated?.close();
  sqlite?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  await postgres?.stop();
});

interface Column {
  readonly name: string;
  readonly notNull: boolean;
}

/** SQLite's tables, without FTS5's virtual tables and their shadow tables. */
function sqliteTables(db: Db): string[] {
  const rows = db.prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
  const virtual = rows.filter((row) => /^CREATE VIRTUAL TABLE/i.test(row.sql)).map((row) => row.name);
  return rows
    .map((row) => row.name)
    .filter((name) => !virtual.some((table) => name === table || name.startsWith(`${table}_`)))
    .sort();
}

/** A column is NOT NULL in SQLite when declared so or when it is (part of) the primary key: the engine never stores a null id. */
const sqliteColumns = (db: Db, table: string): Column[] =>
  db
    .prepare<[], { name: string; notnull: number; pk: number }>(`PRAGMA table_info(${table})`)
    .all()
    .map((row) => ({ name: row.name, notNull: row.notnull === 1 || row.pk > 0 }));

const postgresColumns = async (sql: Sql, table: string): Promise<Column[]> =>
  (
    await sql.all<{ name: string; nullable: string }>(
      `SELECT column_name AS name, is_nullable AS nullable FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`,
      [table],
    )
  ).map((row) => ({ name: row.name, notNull: row.nullable === 'NO' }));

/** A unique key: its table, columns (in key order), and the predicate of a partial index, normalized. */
interface UniqueKey {
  readonly table: string;
  readonly columns: string;
  readonly where: string;
}

const normalizedPredicate = (text: string): string =>
  text
    .replace(/::[a-z ]+/g, '')
    .replace(/[()\s]/g, '')
    .toLowerCase();

function sqliteUniqueKeys(db: Db, table: string): UniqueKey[] {
  const keys: UniqueKey[] = [];
  const columns = db.prepare<[], { name: string; type: string; pk: number }>(`PRAGMA table_info(${table})`).all();
  const primary = columns.filter((column) => column.pk > 0);
  // INTEGER PRIMARY KEY is the rowid: it has no index of its own in index_list.
  if (primary.length === 1 && primary[0]!.type.toUpperCase() === 'INTEGER') keys.push({ table, columns: primary[0]!.name, where: '' });
  for (const index of db.prepare<[], { name: string; unique: number; partial: number }>(`PRAGMA index_list(${table})`).all()) {
    if (index.unique !== 1) continue;
    const names = db
      .prepare<[], { seqno: number; name: string | null }>(`PRAGMA index_info(${index.name})`)
      .all()
      .sort((a, b) => a.seqno - b.seqno)
      .map((column) => column.name ?? '(expression)');
    let where = '';
    if (index.partial === 1) {
      const { sql } = db.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?").get(index.name)!;
      where = normalizedPredicate(/\bWHERE\b([\s\S]*)$/i.exec(sql)![1]!);
    }
    keys.push({ table, columns: names.join(', '), where });
  }
  return keys;
}

const postgresUniqueKeys = async (sql: Sql, table: string): Promise<UniqueKey[]> =>
  (
    await sql.all<{ columns: string; predicate: string | null }>(
      `SELECT (SELECT string_agg(pg_get_indexdef(i.indexrelid, n, true), ', ' ORDER BY n)
                 FROM generate_series(1, i.indnkeyatts) AS n) AS columns,
              pg_get_expr(i.indpred, i.indrelid) AS predicate
       FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
       WHERE i.indisunique AND t.relname = ? AND t.relnamespace = current_schema()::regnamespace`,
      [table],
    )
  ).map((row) => ({
    table,
    // A digest stands for a long text column: a B-tree entry holds at most 2,704 bytes (data_sources.url).
    columns: row.columns.replaceAll('"', '').replace(/\bmd5\((\w+)\)/g, '$1'),
    where: row.predicate === null ? '' : normalizedPredicate(row.predicate),
  }));

/** A foreign key: the referencing columns, the referenced table and columns, and what deleting the referenced row does. */
const sqliteForeignKeys = (db: Db, table: string): string[] => {
  const rows = db.prepare<[], { id: number; seq: number; table: string; from: string; to: string | null; on_delete: string }>(`PRAGMA foreign_key_list(${table})`).all();
  const byId = new Map<number, typeof rows>();
  for (const row of rows) byId.set(row.id, [...(byId.get(row.id) ?? []), row]);
  return [...byId.values()]
    .map((parts) => {
      const sorted = parts.sort((a, b) => a.seq - b.seq);
      const first = sorted[0]!;
      return `${table}(${sorted.map((part) => part.from).join(', ')}) -> ${first.table}(${sorted.map((part) => part.to ?? 'id').join(', ')}) ON DELETE ${first.on_delete}`;
    })
    .sort();
};

const postgresForeignKeys = async (sql: Sql, table: string): Promise<string[]> =>
  (
    await sql.all<{ key: string }>(
      `SELECT format('%s(%s) -> %s(%s) ON DELETE %s', t.relname,
                (SELECT string_agg(a.attname, ', ' ORDER BY k.n) FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
                   JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum),
                r.relname,
                (SELECT string_agg(a.attname, ', ' ORDER BY k.n) FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, n)
                   JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum),
                CASE c.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT'
                                   WHEN 'r' THEN 'RESTRICT' ELSE 'NO ACTION' END) AS key
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
       WHERE c.contype = 'f' AND t.relname = ? AND t.relnamespace = current_schema()::regnamespace`,
      [table],
    )
  )
    .map((row) => row.key)
    .sort();

describe('the PostgreSQL schema against the SQLite one', () => {
  it('has every SQLite table (FTS5 aside), with the same columns and NOT NULLs', async () => {
    const tables = sqliteTables(sqlite);
    // The check covers the whole schema: every migration's tables are there.
    expect(tables).toEqual(expect.arrayContaining(['gurus', 'data_sources', 'chunks', 'links', 'jobs', 'questions', 'crawl_urls', 'retired_ids', 'question_attachments']));
    for (const table of tables) {
      const expected = sqliteColumns(sqlite, table);
      const actual = await postgresColumns(migrated, table);
      expect(actual.length, `table ${table} in PostgreSQL`).toBeGreaterThan(0);
      // Columns only PostgreSQL has (full-text search's, say) may follow; each of SQLite's is there as it is.
      for (const column of expected) {
        expect(actual.find((each) => each.name === column.name), `${table}.${column.name}`).toEqual(column);
      }
    }
  });

  it('has no table SQLite lacks but the ones it keeps on purpose (POSTGRES_ONLY_TABLES)', async () => {
    const tables = (await migrated.all<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'")).map((row) => row.name);
    const sqliteOnes = sqliteTables(sqlite);
    expect(tables.filter((table) => !sqliteOnes.includes(table)).sort()).toEqual([...POSTGRES_ONLY_TABLES].sort());
  });

  it("keeps end users' records with the columns of endusers.sqlite's Keyv table, one row per namespace and key", async () => {
    const store = openRecordStore(dir);
    try {
      await store.namespace('profiles:schema').set('someone', { a: 1 });
    } finally {
      await store.close();
    }
    const records = new Database(join(dir, RECORDS_FILE), { readonly: true });
    try {
      // @keyv/sqlite's table; `expires` is left out on PostgreSQL, where records never expire.
      const expected = sqliteColumns(records, 'keyv').filter((column) => column.name !== 'expires');
      const actual = await postgresColumns(migrated, 'end_user_records');
      expect(actual.map((column) => column.name).sort()).toEqual(expected.map((column) => column.name).sort());
      expect(await postgresUniqueKeys(migrated, 'end_user_records')).toEqual([{ table: 'end_user_records', columns: 'namespace, key', where: '' }]);
    } finally {
      records.close();
    }
  });

  it('has every unique key of SQLite (primary keys, UNIQUE, partial unique indexes) on the same columns', async () => {
    for (const table of sqliteTables(sqlite)) {
      const actual = await postgresUniqueKeys(migrated, table);
      for (const key of sqliteUniqueKeys(sqlite, table)) {
        expect(actual, `unique key of ${table}`).toContainEqual(key);
      }
    }
  });

  it('has every foreign key of SQLite, deleting alike', async () => {
    for (const table of sqliteTables(sqlite)) {
      const expected = sqliteForeignKeys(sqlite, table);
      expect(await postgresForeignKeys(migrated, table), `foreign keys of ${table}`).toEqual(expected);
    }
  });

  it('names SQLite’s indexes alike', async () => {
    const expected = sqlite
      .prepare<[], { name: string; tbl_name: string }>("SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")
      .all()
      .filter((index) => sqliteTables(sqlite).includes(index.tbl_name))
      .map((index) => index.name)
      .sort();
    const actual = (await migrated.all<{ name: string }>('SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema()')).map((row) => row.name);
    expect(actual).toEqual(expect.arrayContaining(expected));
  });

  it('stores what SQLite stores: bytes, millisecond times, 0/1 flags, a question of 10,000 characters, a URL of 4,096', async () => {
    const gurus = new GuruRepository(migrated);
    const guru = (await gurus.create(`kinds-${Date.now()}`, 'Kinds', new Date().toISOString()))!;
    await migrated.run("INSERT INTO integrations (guru_id, kind, base_url, sealed_token, date_created) VALUES (?, 'JIRA', 'https://j.example', ?, '')", [
      guru.id,
      Buffer.from([0, 255, 7]),
    ]);
    expect([...(await migrated.get<{ sealed_token: Buffer }>('SELECT sealed_token FROM integrations WHERE guru_id = ?', [guru.id]))!.sealed_token]).toEqual([0, 255, 7]);
    const source = await migrated.get<{ id: number; private: number; labels: string }>(
      `INSERT INTO data_sources (id, guru_id, type, name, content, private, date_created) VALUES (${nextIdOf('data_sources', 'postgres')}, ?, 'TEXT', 'n', 'c', 1, '') RETURNING id, private, labels`,
      [guru.id],
    );
    expect(source).toMatchObject({ private: 1, labels: '[]' });
    const now = Date.now();
    await migrated.run("INSERT INTO jobs (kind, source_id, available_at, created_at) VALUES ('ingest', ?, ?, ?)", [source!.id, now, now]);
    expect(await migrated.get('SELECT available_at, attempts, private_network FROM jobs WHERE source_id = ?', [source!.id])).toEqual({ available_at: now, attempts: 0, private_network: 0 });
    // Random text does not compress: past the largest B-tree entry, so the question's index is a hash.
    const question = Array.from({ length: 10_000 }, () => String.fromCodePoint(0x4e00 + Math.floor(Math.random() * 0x5000))).join('');
    await migrated.run("INSERT INTO binges (id, guru_id, date_created, last_used) VALUES ('b-long', ?, '', '')", [guru.id]);
    await migrated.run(
      `INSERT INTO questions (guru_id, binge_id, slug, user_question, question, content, trust_score, references_json, can_receive_feedback, source, date_created, date_updated)
       VALUES (?, 'b-long', 'long', ?, ?, '', 0, '[]', 1, 'API', '', '')`,
      [guru.id, question, question],
    );
    expect(await migrated.get('SELECT slug FROM questions WHERE question = ?', [question])).toEqual({ slug: 'long' });
    // A URL of MAX_URL_CHARS, random enough not to compress, as a source and as a link's target; once per guru.
    const url = `https://example.com/?q=${randomBytes(MAX_URL_CHARS).toString('base64url')}`.slice(0, MAX_URL_CHARS);
    const page = await migrated.get<{ id: number }>(
      `INSERT INTO data_sources (id, guru_id, type, url, date_created) VALUES (${nextIdOf('data_sources', 'postgres')}, ?, 'WEBSITE', ?, '') RETURNING id`,
      [guru.id, url],
    );
    await expect(
      migrated.run(`INSERT INTO data_sources (id, guru_id, type, url, date_created) VALUES (${nextIdOf('data_sources', 'postgres')}, ?, 'WEBSITE', ?, '')`, [guru.id, url]),
    ).rejects.toThrow(/data_sources_guru_url/);
    await migrated.run("INSERT INTO links (guru_id, source_id, target, text) VALUES (?, ?, ?, 'Install')", [guru.id, page!.id, url]);
    expect(await migrated.get('SELECT id FROM data_sources WHERE guru_id = ? AND url = ?', [guru.id, url])).toEqual(page);
  });

  it('never gives a guru id out twice, nor one id to two gurus made at once', async () => {
    const gurus = new GuruRepository(migrated);
    const now = new Date().toISOString();
    const made = await Promise.all(Array.from({ length: 12 }, (_, n) => gurus.create(`at-once-${n}`, `At once ${n}`, now)));
    const ids = made.map((guru) => guru!.id);
    expect(new Set(ids).size).toBe(ids.length);
    const newest = Math.max(...ids);
    await migrated.run('DELETE FROM gurus WHERE id = ?', [newest]);
    const next = await gurus.create('after-delete', 'After', now);
    expect(next!.id).toBeGreaterThan(newest);
    // A slug taken: nothing made (the sequence may move on; ids are never reused, not dense).
    expect(await gurus.create('after-delete', 'Again', now)).toBeUndefined();
  });
});

describe('migrating PostgreSQL', () => {
  it('applies each migration once when two processes start at once, the second waiting for the first', async () => {
    const url = await freshDatabase(postgres);
    const holder = PostgresSql.connect({ url, poolSize: 2 });
    const first = PostgresSql.connect({ url, poolSize: 2 });
    const second = PostgresSql.connect({ url, poolSize: 2 });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Holds the migration lock until both processes wait for it, so that they surely meet.
    const holding = holder.transaction(async (tx) => {
      await tx.get('SELECT pg_advisory_xact_lock(?::bigint) AS locked', [MIGRATION_LOCK]);
      await released;
    });
    try {
      let settled = 0;
      const migrations = [migratePostgres(first), migratePostgres(second)].map((migration) => migration.finally(() => (settled += 1)));
      for (const migration of migrations) migration.catch(() => undefined); // failures are awaited below, or the test failed before
      // Until both wait for the lock (or one did not wait for it: then the checks below fail).
      while (settled === 0) {
        const waiting = await holder.get<{ n: number }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
        if (waiting!.n === 2) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(settled).toBe(0);
      release();
      await holding;
      const latest = POSTGRES_MIGRATIONS.at(-1)!.version;
      expect(await Promise.all(migrations)).toEqual([latest, latest]);
      expect(await first.all('SELECT version FROM schema_migrations ORDER BY version')).toEqual(POSTGRES_MIGRATIONS.map(({ version }) => ({ version })));
      expect(await first.get('SELECT count(*) AS n FROM gurus')).toEqual({ n: 0 });
    } finally {
      release();
      await holding;
      await Promise.all([holder.close(), first.close(), second.close()]);
    }
  });

  it('refuses a database a newer guru-mcp migrated, with the words SQLite’s store uses, and changes nothing', async () => {
    const url = await freshDatabase(postgres);
    const store = PostgresSql.connect({ url, poolSize: 1 });
    try {
      await migratePostgres(store);
      await store.run("INSERT INTO schema_migrations (version, name) VALUES (99, 'from the future')");
      const latest = POSTGRES_MIGRATIONS.at(-1)!.version;
      await expect(migratePostgres(store)).rejects.toThrow(new NewerSchemaError(99, latest).message);
      expect(new NewerSchemaError(99, latest).message).toBe(`The database was written by a newer guru-mcp (schema 99, this version knows ${latest}). Upgrade guru-mcp.`);
      expect(await store.get('SELECT count(*) AS n FROM schema_migrations')).toEqual({ n: POSTGRES_MIGRATIONS.length + 1 });
    } finally {
      await store.close();
    }
    // SQLite says the same of its file.
    const old = mkdtempSync(join(tmpdir(), 'guru-pg-schema-newer-'));
    try {
      const db = openDatabase(old);
      db.pragma('user_version = 99');
      db.close();
      expect(() => openDatabase(old)).toThrow(new NewerSchemaError(99, MIGRATIONS.at(-1)!.version).message);
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  });
});
