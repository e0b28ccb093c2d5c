/**
 * The store port: the one way the engine's capabilities read and write their durable data. Two
 * implementations speak it: the embedded SQLite file (./sqlite-sql.ts, the default) and PostgreSQL
 * (./postgres-sql.ts, GURU_DATABASE_URL), so that the capabilities never know which one they run on.
 *
 * Statements are written once, in the SQL both understand, with `?` placeholders (or `@name` with an
 * object of parameters); where the two differ (full-text search, JSON, upsert spellings), the
 * `dialect` says which one to write. Values are what SQLite stores: numbers, strings, null and
 * Buffers; booleans go in as 0 / 1 and integer results come back as numbers from both.
 */

export type Dialect = 'sqlite' | 'postgres';

/**
 * Statement texts an implementation keeps prepared. The engine's are constants (a few hundred at
 * most); a text built per call beyond this is prepared each time rather than kept for ever.
 */
export const MAX_PREPARED = 1_000;

/** A statement's parameters: positional for `?`, or named for `@name`. */
export type Params = readonly unknown[] | Readonly<Record<string, unknown>>;

export interface RunResult {
  /** Rows inserted, updated or deleted. */
  readonly changes: number;
}

export interface Sql {
  readonly dialect: Dialect;
  /** Every row the statement returns. */
  all<Row>(statement: string, params?: Params): Promise<Row[]>;
  /** The first row the statement returns, if any. */
  get<Row>(statement: string, params?: Params): Promise<Row | undefined>;
  /** Runs a statement that changes rows. */
  run(statement: string, params?: Params): Promise<RunResult>;
  /** Runs statements without parameters (schema changes, several at once). */
  exec(statements: string): Promise<void>;
  /**
   * Runs `work` in one transaction on `tx`, committed when it resolves and rolled back when it
   * throws. Inside it, use `tx` only: the outer handle is another connection (PostgreSQL) or waits
   * for the transaction to end (SQLite). A transaction inside a transaction joins it.
   */
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * transaction(), when one can begin now without waiting for another writer; undefined when it
   * cannot (SQLite: another connection holds the file's write lock, or a transaction is open on
   * this one). PostgreSQL locks rows, not the store: there it always begins. For writes that may
   * as well wait for a later turn (the search log, a crawl's progress).
   */
  transactionIfFree<T>(work: (tx: Sql) => Promise<T>): Promise<T | undefined>;
  /**
   * run(), when it can start now without waiting for another writer (as transactionIfFree);
   * undefined when it cannot. One statement is a transaction of its own: on PostgreSQL it goes
   * alone, without the BEGIN and COMMIT round trips a transaction adds.
   */
  runIfFree(statement: string, params?: Params): Promise<RunResult | undefined>;
}

/** The store as the engine opens and closes it. */
export interface Store extends Sql {
  close(): Promise<void>;
}
