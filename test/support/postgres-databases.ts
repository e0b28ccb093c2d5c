/**
 * More databases (and roles) on a test server of ./postgres.ts, made by its superuser over the
 * server's Unix socket (trusted there): each test of the store's schema gets an empty database.
 */
import { PostgresSql } from '../../src/engine/store/postgres-sql.js';
import type { TestPostgres } from './postgres.js';

/** The superuser `postgres` on the server's socket, in `database`. */
export const superuserUrl = (server: TestPostgres, database = 'postgres'): string =>
  `postgresql://postgres@/${database}?host=${encodeURIComponent(server.dir)}&port=${server.port}`;

/** The server's URL (its password user) with another database. */
export const urlOf = (server: TestPostgres, database: string): string => {
  const url = new URL(server.url);
  url.pathname = `/${database}`;
  return url.href;
};

let made = 0;

/** Runs statements as the superuser (CREATE DATABASE, CREATE ROLE: outside a transaction). */
export async function asSuperuser(server: TestPostgres, statements: readonly string[], database = 'postgres'): Promise<void> {
  const admin = PostgresSql.connect({ url: superuserUrl(server, database), poolSize: 1 });
  try {
    for (const statement of statements) await admin.exec(statement);
  } finally {
    await admin.close();
  }
}

/** An empty database owned by the server's password user (or `owner`); returns its URL for that user. */
export async function freshDatabase(server: TestPostgres, owner = 'guru'): Promise<string> {
  made += 1;
  const name = `fresh_${process.pid}_${made}`;
  await asSuperuser(server, [`CREATE DATABASE ${name} OWNER ${owner}`]);
  return urlOf(server, name);
}
