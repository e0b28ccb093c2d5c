/**
 * The store port over one better-sqlite3 connection. Statements are prepared once per text and
 * kept. SQLite itself is synchronous, so every promise here is already settled when it is
 * returned; a transaction holds the connection across its awaits, and while it is open the other
 * callers of the same connection wait for it (they would otherwise read its uncommitted rows, or
 * write into it).
 */
import type { Statement } from 'better-sqlite3';
import { setTimeout as delay } from 'node:timers/promises';
import { BUSY_TIMEOUT_MS, checkpoint, isBusy, withoutWaiting, type Db } from './database.js';
import { MAX_PREPARED, type Params, type RunResult, type Sql, type Store } from './sql.js';

/** While another connection holds the write lock, a transaction waiting for it tries again this often. */
const RETRY_MS = 4;

class Statements {
  readonly db: Db;
  readonly #prepared = new Map<string, Statement>();

  constructor(db: Db) {
    this.db = db;
  }

  prepare(text: string): Statement {
    let statement = this.#prepared.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      if (this.#prepared.size < MAX_PREPARED) this.#prepared.set(text, statement);
    }
    return statement;
  }
}

const bind = (params: Params | undefined): unknown[] => (params === undefined ? [] : Array.isArray(params) ? params : [params]);

/** Statements run as they come, on a connection inside a transaction (or on one nobody else shares). */
class SqliteHandle implements Sql {
  readonly dialect = 'sqlite' as const;
  protected readonly statements: Statements;

  constructor(statements: Statements) {
    this.statements = statements;
  }

  /** The connection, for what only SQLite has (FTS5 maintenance, checkpoints, sqlite-vec). */
  get db(): Db {
    return this.statements.db;
  }

  /** Undefined when the connection is this handle's to use now; else resolves when it may be. */
  protected ready(): Promise<void> | undefined {
    return undefined;
  }

  /**
   * Runs `use` once the connection is this handle's, in the same turn as the last check: several
   * callers woken by the end of one transaction would otherwise all go ahead, and the first to
   * open the next transaction would have the others' statements run inside it.
   */
  protected when<T>(use: () => T): T | Promise<T> {
    const wait = this.ready();
    return wait ? wait.then(() => this.when(use)) : use();
  }

  async all<Row>(text: string, params?: Params): Promise<Row[]> {
    return this.when(() => this.statements.prepare(text).all(...bind(params)) as Row[]);
  }

  async get<Row>(text: string, params?: Params): Promise<Row | undefined> {
    return this.when(() => this.statements.prepare(text).get(...bind(params)) as Row | undefined);
  }

  async run(text: string, params?: Params): Promise<RunResult> {
    return this.when(() => ({ changes: this.statements.prepare(text).run(...bind(params)).changes }));
  }

  async exec(text: string): Promise<void> {
    return this.when(() => {
      this.statements.db.exec(text);
    });
  }

  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return work(this);
  }

  /** Inside a transaction: joining it is not a write's to do that may wait for a later turn. */
  async transactionIfFree<T>(_work: (tx: Sql) => Promise<T>): Promise<T | undefined> {
    return undefined;
  }

  runIfFree(statement: string, params?: Params): Promise<RunResult | undefined> {
    return this.transactionIfFree((tx) => tx.run(statement, params));
  }
}

export class SqliteSql extends SqliteHandle implements Store {
  /** Settles when the open transaction ends; undefined while none is open. */
  #open: Promise<void> | undefined;
  readonly #inTransaction: SqliteHandle;

  constructor(db: Db) {
    const statements = new Statements(db);
    super(statements);
    this.#inTransaction = new SqliteHandle(statements);
  }

  protected override ready(): Promise<void> | undefined {
    return this.#open && this.#waitForTransaction();
  }

  async #waitForTransaction(): Promise<void> {
    const deadline = Date.now() + BUSY_TIMEOUT_MS;
    while (this.#open) {
      const wait = Math.max(0, deadline - Date.now());
      const timedOut = await Promise.race([this.#open.then(() => false), delay(wait, true, { ref: false })]);
      if (timedOut) {
        throw new Error(`waited ${BUSY_TIMEOUT_MS} ms for a transaction on the same connection: inside transaction(), use its tx`);
      }
    }
  }

  override async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return this.#within(work, await this.#begin());
  }

  override async transactionIfFree<T>(work: (tx: Sql) => Promise<T>): Promise<T | undefined> {
    const end = this.#beginIfFree();
    return end && this.#within(work, end);
  }

  /** Marks the connection taken by the transaction just begun on it; the others wait until `end`. */
  #taken(): () => void {
    let end!: () => void;
    this.#open = new Promise((resolve) => (end = resolve));
    return end;
  }

  /** Runs `work` in the transaction begun on the connection, and ends it. */
  async #within<T>(work: (tx: Sql) => Promise<T>, end: () => void): Promise<T> {
    try {
      const result = await work(this.#inTransaction);
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw error;
    } finally {
      this.#open = undefined;
      end();
    }
  }

  /**
   * BEGIN IMMEDIATE, once the connection and the write lock are free, and the connection marked
   * taken in the same turn (the others wait from then on); resolves to the mark's end. It waits without blocking the thread: SQLite's own busy wait
   * sleeps the whole event loop, in steps of up to 100 ms, so every request behind it would wait
   * for the writer thread's commit too; and while it waits for the lock, the others' statements go
   * on (a search does not wait for the writer thread's commit). Fails with SQLITE_BUSY after
   * BUSY_TIMEOUT_MS, as a write waiting in SQLite would.
   */
  async #begin(): Promise<() => void> {
    const deadline = Date.now() + BUSY_TIMEOUT_MS;
    for (;;) {
      const end = await this.when(() => {
        try {
          withoutWaiting(this.db, () => this.db.exec('BEGIN IMMEDIATE'));
        } catch (error) {
          if (!isBusy(error) || Date.now() >= deadline) throw error;
          return undefined;
        }
        return this.#taken();
      });
      if (end) return end;
      await delay(RETRY_MS);
    }
  }

  /** #begin, if the connection and the write lock are free now; undefined, without waiting, if not. */
  #beginIfFree(): (() => void) | undefined {
    if (this.#open || this.db.inTransaction) return undefined;
    try {
      withoutWaiting(this.db, () => this.db.exec('BEGIN IMMEDIATE'));
    } catch (error) {
      if (isBusy(error)) return undefined;
      throw error;
    }
    return this.#taken();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

/** The SQLite connection under a store, when it is one: for what only SQLite has. */
export const sqliteOf = (sql: Sql): Db | undefined => (sql instanceof SqliteHandle ? sql.db : undefined);

/**
 * After an erasure: SQLite's write-ahead log is emptied into the file, so that deleted text leaves
 * the log too (and, with secure_delete, the file). PostgreSQL: nothing here; deleted rows stay in
 * the table's pages until VACUUM, and the server's WAL is its own (docs/security.md).
 */
export function emptyLog(sql: Sql): void {
  const db = sqliteOf(sql);
  if (db) checkpoint(db);
}
