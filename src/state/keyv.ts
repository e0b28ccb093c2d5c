/**
 * The one place that creates Keyv instances. Short-lived shared state (rate-limit
 * windows, answer-progress lines, caches) lives in `<dataDir>/state.sqlite`, one
 * namespace per use, so that several server instances on one data directory share
 * it; with a Redis URL (GURU_REDIS_URL) it lives in Redis instead (./redis.ts), so
 * that processes on several machines share it. End users' profiles and memories
 * are durable records in `<dataDir>/endusers.sqlite`, or with a database URL in the
 * PostgreSQL store (./keyv-sql.ts), never in Redis.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import KeyvSqlite, { type SqliteDriver } from '@keyv/sqlite';
import Database from 'better-sqlite3';
import Keyv from 'keyv';
import { ensureDataDir, preparePrivateDatabase } from '../data-dir.js';
import type { Sql } from '../engine/store/sql.js';
import { createLogger, describeError, type Logger } from '../log.js';
import { KeyvSqlStore, RECORDS_TABLE } from './keyv-sql.js';

/** How long a connection waits for another instance's write lock before failing. */
const BUSY_TIMEOUT_MS = 5_000;
/** Expired rows are only removed on read; sweep the ones nobody reads again. */
const CLEAR_EXPIRED_INTERVAL_MS = 10 * 60_000;

/** The file of the state store in the data directory. */
export const STATE_FILE = 'state.sqlite';

/** Where the short-lived state lives: Redis at `redisUrl` when set, else `<dataDir>/state.sqlite`. */
export interface StateLocation {
  readonly dataDir: string;
  readonly redisUrl?: string | undefined;
}

/** A failing store is logged at most this often (with the count of failures since): Redis down means every operation fails. */
const WARNING_INTERVAL_MS = 30_000;

/**
 * Opens the namespace `namespace` of the state store at `location`. Store failures
 * are logged, and the operation reads as a miss (`get` gives undefined, `set`
 * false): state here is disposable, and an unheard Keyv error event would
 * otherwise throw, from a timer even. The Redis client is loaded only here, and
 * only with a Redis URL.
 */
export async function openStateStore(location: StateLocation, namespace: string, logger: Logger = createLogger('warn')): Promise<Keyv> {
  const { redisUrl } = location;
  const keyv = redisUrl === undefined ? openSqliteStateStore(location.dataDir, namespace) : (await import('./redis.js')).openRedisStateStore(redisUrl, namespace);
  let warnedAt = Number.NEGATIVE_INFINITY;
  let unreported = 0;
  keyv.on('error', (error: unknown) => {
    const at = Date.now();
    if (at - warnedAt < WARNING_INTERVAL_MS) {
      unreported += 1;
      return;
    }
    logger.warn('state store failed', {
      namespace,
      store: redisUrl === undefined ? 'sqlite' : 'redis',
      error: describeError(error),
      ...(unreported > 0 ? { failuresSinceLastWarning: unreported } : {}),
    });
    warnedAt = at;
    unreported = 0;
  });
  return keyv;
}

function openSqliteStateStore(dataDir: string, namespace: string): Keyv {
  ensureDataDir(dataDir);
  const path = join(dataDir, STATE_FILE);
  // Created (or narrowed) before SQLite opens it: it and its -wal and -shm stay private.
  preparePrivateDatabase(path);
  // Each store has a connection of its own (closed with it), over better-sqlite3: auto-detection
  // would pick the experimental node:sqlite on newer Node.
  const driver: SqliteDriver = {
    name: 'custom',
    connect: async () => {
      const db = new Database(path);
      try {
        db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
        db.pragma('journal_mode = WAL');
      } catch (error) {
        db.close();
        throw error;
      }
      return {
        query: cachedQuery(db),
        close: async () => {
          db.close();
        },
      };
    },
  };
  const store = new KeyvSqlite({ uri: `sqlite://${path}`, driver, clearExpiredInterval: CLEAR_EXPIRED_INTERVAL_MS });
  return new Keyv({ store, namespace });
}

/** What the Redis store (./redis.ts) offers beyond Keyv's operations. */
export interface SharedStateStore {
  deleteKeysStartingWith(prefix: string): Promise<number>;
  gcra(key: string, now: number | undefined, intervalMs: number, windowMs: number): Promise<number>;
}

/** The Redis store under `store`, if it is one (found by what it offers: its class is loaded only with a Redis URL). */
export function sharedStoreOf(store: Keyv): SharedStateStore | undefined {
  const inner = store.store as Partial<SharedStateStore> | undefined;
  return typeof inner?.deleteKeysStartingWith === 'function' && typeof inner.gcra === 'function' ? (inner as SharedStateStore) : undefined;
}

/** Statements kept prepared per connection; the stores use a handful, more only with getMany/setMany's lists. */
const MAX_CACHED_STATEMENTS = 32;

/**
 * The stores' queries over a better-sqlite3 connection, each statement prepared once: Keyv's SQLite
 * store sends its SQL as text on every call (two reads and two writes per rate-limited request), and
 * preparing it again each time cost more than running it.
 */
function cachedQuery(db: Database.Database): (sql: string, ...parameters: unknown[]) => Promise<unknown[]> {
  const statements = new Map<string, Database.Statement>();
  return async (sql, ...parameters) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      if (statements.size < MAX_CACHED_STATEMENTS) statements.set(sql, statement);
    }
    const values = parameters.map((value) => (value !== null && typeof value === 'object' ? JSON.stringify(value) : value));
    if (statement.reader) return statement.all(...values);
    statement.run(...values);
    return [];
  };
}

/** The file of durable end-user records (profiles and memories) in the data directory. */
export const RECORDS_FILE = 'endusers.sqlite';

/**
 * Durable records kept with Keyv: end users' profiles and memories. Unlike the
 * state store, nothing here is disposable, so a failing store throws (a reader
 * must not take a miss for "nothing held"), nothing expires, and deleted rows
 * are overwritten (`secure_delete`), so that erased data leaves the file.
 */
export interface RecordStore {
  /** The records of one namespace (one per guru and kind keeps gurus apart). Store failures reject. */
  namespace(name: string): Keyv;
  /**
   * Copies the write-ahead log into the database file and empties it, so that
   * no older copy of an erased record stays in the log. Waits (busy timeout) for
   * other processes' readers; if they outlast it, the log is emptied by a later call.
   */
  compact(): Promise<void>;
  /**
   * Runs `work` (a read, then a write) with the record `key` of `namespace` held against every
   * other writer of it going through here, other processes on the database included, so that two
   * at once do not lose one's write. Inside, use only the store `work` is given.
   */
  exclusively<T>(namespace: string, key: string, work: (store: RecordStore) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function openRecordStore(dataDir: string, file: string = RECORDS_FILE): RecordStore {
  const filename = join(dataDir, file);
  let connection: Database.Database | undefined;
  // One connection for every namespace: better-sqlite3 is synchronous, so sharing it is safe.
  const connect = (): Database.Database => {
    if (connection) return connection;
    ensureDataDir(dataDir);
    // Created (or narrowed) before SQLite opens it: it and its -wal and -shm stay private.
    preparePrivateDatabase(filename);
    const db = new Database(filename);
    try {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.pragma('journal_mode = WAL');
      db.pragma('secure_delete = ON');
    } catch (error) {
      db.close();
      throw error;
    }
    connection = db;
    return db;
  };
  const driver: SqliteDriver = {
    name: 'custom',
    connect: async () => {
      const db = connect();
      // The connection is the record store's, closed with it.
      return { query: cachedQuery(db), close: async () => {} };
    },
  };
  return {
    namespace(name) {
      const keyv = new Keyv({ store: new KeyvSqlite({ uri: `sqlite://${filename}`, driver }), namespace: name });
      keyv.throwOnEmitError = true;
      return keyv;
    },
    async compact() {
      connection?.pragma('wal_checkpoint(TRUNCATE)');
    },
    // One file, one writer at a time per statement; a read and a write of two processes may still
    // interleave (the embedded store serves one process, as it always has).
    async exclusively(_namespace, _key, work) {
      return work(this);
    },
    async close() {
      connection?.close();
      connection = undefined;
    },
  };
}

/**
 * The record store in the engine's durable store (`sql`): PostgreSQL's table `end_user_records`
 * (./keyv-sql.ts), shared by every process on the database. Like the file's store, a failure
 * rejects and nothing expires; erased rows are deleted in the statement that erases them. The
 * connections are the engine's: closing the record store leaves them open.
 */
export function openSqlRecordStore(sql: Sql): RecordStore {
  return {
    namespace(name) {
      const keyv = new Keyv({ store: new KeyvSqlStore(sql), namespace: name });
      keyv.throwOnEmitError = true;
      return keyv;
    },
    /**
     * A plain VACUUM of the table (it blocks no reader or writer): the erased rows' space and index
     * entries are freed for reuse. It does not wipe their bytes: PostgreSQL overwrites freed space
     * only as later writes reuse it, and the write-ahead log (and its archives, replicas and backups)
     * keeps them until recycled; docs/security.md says what an operator can do.
     */
    async compact() {
      if (sql.dialect === 'postgres') await sql.exec(`VACUUM ${RECORDS_TABLE}`);
    },
    /** In a transaction holding an advisory lock named by the record: released when it ends, whichever process held it. */
    async exclusively(namespace, key, work) {
      return sql.transaction(async (tx) => {
        if (tx.dialect === 'postgres') await tx.get('SELECT pg_advisory_xact_lock(hashtextextended(?, 0)) AS locked', [`${RECORDS_TABLE} ${namespace} ${key}`]);
        return work(openSqlRecordStore(tx));
      });
    },
    async close() {},
  };
}

/**
 * Deletes the entries of `store` (one namespace) whose key starts with `prefix`, and the expired
 * entries of the whole store, which iterating passes over and which would otherwise stay until
 * the next sweep; returns how many live entries went.
 */
export async function deleteKeysStartingWith(store: Keyv, prefix: string): Promise<number> {
  // Redis: SCAN for the prefix; its expired keys are gone already.
  const shared = sharedStoreOf(store);
  if (shared) return shared.deleteKeysStartingWith(prefix);
  const keys: string[] = [];
  for await (const [key] of store.iterator()) if (typeof key === 'string' && key.startsWith(prefix)) keys.push(key);
  if (keys.length > 0) await store.deleteMany(keys);
  await (store.store as { clearExpired?: () => Promise<void> }).clearExpired?.();
  return keys.length;
}

/**
 * Rewrites the state store's file without the space its deleted entries took (VACUUM) and
 * empties its log, so that what was deleted from it leaves the files: its store overwrites
 * nothing on delete. The store is small, short-lived state; a file never made is left alone,
 * and so is Redis, which keeps nothing of a deleted key.
 */
export function compactStateStore(location: StateLocation): void {
  if (location.redisUrl !== undefined) return;
  const path = join(location.dataDir, STATE_FILE);
  if (!existsSync(path)) return;
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
