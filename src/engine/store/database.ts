/**
 * Opens the engine's SQLite file: WAL so that several server instances (IDE
 * windows) can share one data directory, a busy timeout so that they wait for
 * each other instead of failing, and the numbered migrations.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { ensureDataDir, preparePrivateDatabase } from '../../data-dir.js';
import { MIGRATIONS, NewerSchemaError, type Migration } from './migrations.js';

export type Db = Database.Database;

export const DATABASE_FILE = 'guru.sqlite';

/** How long a write waits for another connection's (the writer thread's) write lock. */
export const BUSY_TIMEOUT_MS = 5_000;

/** Runs `write` without waiting for another connection's write lock: it fails with SQLITE_BUSY instead. */
export function withoutWaiting<T>(db: Db, write: () => T): T {
  db.pragma('busy_timeout = 0');
  try {
    return write();
  } finally {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

export const isBusy = (error: unknown): boolean => error instanceof Database.SqliteError && error.code.startsWith('SQLITE_BUSY');

export function openDatabase(dataDir: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  ensureDataDir(dataDir);
  const path = join(dataDir, DATABASE_FILE);
  preparePrivateDatabase(path);
  const db = new Database(path);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Deleted rows are overwritten, not only unlinked: erased end-user data and deleted sessions leave the file.
  db.pragma('secure_delete = ON');
  return prepared(db, migrations);
}

/**
 * A database of the engine's schema that lives in memory and goes with its connection: a
 * question's attachments are indexed in one to be searched like the knowledge base.
 */
export function openMemoryDatabase(migrations: readonly Migration[] = MIGRATIONS): Db {
  return prepared(new Database(':memory:'), migrations);
}

function prepared(db: Db, migrations: readonly Migration[]): Db {
  db.pragma('foreign_keys = ON');
  // SQLite's lower() folds ASCII only; labels and other user text need Unicode case folding.
  db.function('casefold', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? text.toLowerCase() : text));
  migrate(db, migrations);
  return db;
}

/**
 * Copies the write-ahead log into the database file and empties it, so that no
 * older copy of deleted rows stays in the log. Waits (busy timeout) for other
 * connections' readers; if they outlast it, a later checkpoint empties the log.
 */
export function checkpoint(db: Db): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
}

const schemaVersion = (db: Db): number => db.pragma('user_version', { simple: true }) as number;

function migrate(db: Db, migrations: readonly Migration[]): void {
  const latest = migrations.at(-1)?.version ?? 0;
  const current = schemaVersion(db);
  if (current > latest) {
    throw new NewerSchemaError(current, latest);
  }
  if (current === latest) return;
  // BEGIN IMMEDIATE takes the write lock before reading the version again, so
  // two processes opening an old file at once apply each migration exactly once.
  const apply = db.transaction(() => {
    const now = schemaVersion(db);
    for (const migration of migrations) {
      if (migration.version <= now) continue;
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }
  });
  apply.immediate();
}
