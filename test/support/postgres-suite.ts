/**
 * One throwaway PostgreSQL server for the test file that calls `postgresSuite()` (started in
 * beforeAll, stopped in afterAll), and an empty database on it for each engine a test opens: no
 * per-test initdb, so running a suite on PostgreSQL costs one server start per file.
 *
 * The server's first database is migrated once and each fresh database is a copy of it (CREATE
 * DATABASE … TEMPLATE): the engine that opens it finds its schema current, as on a restart. Each
 * test drops its database when done, so that the server does not slow down under hundreds of them.
 */
import { afterAll, beforeAll } from 'vitest';
import { migratePostgres } from '../../src/engine/store/postgres-migrations.js';
import { PostgresSql } from '../../src/engine/store/postgres-sql.js';
import { asSuperuser, urlOf } from './postgres-databases.js';
import { startPostgres, type TestPostgres } from './postgres.js';

export interface FreshDatabase {
  readonly url: string;
  /** Drops the database (its engine closed first). */
  drop(): Promise<void>;
}

export interface PostgresSuite {
  /** A database of its own on the file's server, its schema migrated. */
  freshDatabase(): Promise<FreshDatabase>;
}

/** Starting a cluster (initdb + pg_ctl) on a busy 2-core machine. */
const START_TIMEOUT_MS = 120_000;

let made = 0;

export function postgresSuite(): PostgresSuite {
  let server: TestPostgres | undefined;
  let template = '';
  beforeAll(async () => {
    server = await startPostgres();
    // The server's own database, migrated once, is the template of every fresh one.
    template = new URL(server.url).pathname.slice(1);
    await onDatabase(server.url, (sql) => migratePostgres(sql));
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await server?.stop();
  }, START_TIMEOUT_MS);
  return {
    async freshDatabase() {
      const on = server;
      if (on === undefined) throw new Error('the PostgreSQL server of this test file has not started');
      made += 1;
      const name = `engine_${process.pid}_${made}`;
      await asSuperuser(on, [`CREATE DATABASE ${name} OWNER guru TEMPLATE ${template}`]);
      return { url: urlOf(on, name), drop: () => asSuperuser(on, [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]) };
    },
  };
}

/** Runs `read` on a short-lived connection to the database at `url` (reading what the engine stored, apart from it). */
export async function onDatabase<T>(url: string, read: (sql: PostgresSql) => Promise<T>): Promise<T> {
  const sql = PostgresSql.connect({ url, poolSize: 1 });
  try {
    return await read(sql);
  } finally {
    await sql.close();
  }
}
