import { describeError, type Logger } from '../../log.js';
import { jsonRows } from '../store/dialect.js';
import type { Dialect, Sql } from '../store/sql.js';

/** While the write lock is taken, writing the waiting searches is tried again this often. */
const RETRY_MS = 25;
/** Searches kept waiting for the write lock at most: beyond, they are written as soon as the lock is free. */
const MAX_PENDING = 1_000;

export interface NewSearch {
  readonly guruId: number;
  readonly externalUserId: string | null;
  readonly query: string;
  readonly labels: readonly string[];
  readonly now: string;
}

/** A logged search as the end user's data bundle shows it. */
export type LoggedSearch = {
  readonly query: string;
  readonly selected_labels: string[];
  readonly date_created: string;
};

/** The waiting searches in one statement (a transaction of its own), bound as one JSON list of rows. */
const insertRows = (dialect: Dialect): string => `
  INSERT INTO searches (guru_id, external_user_id, query, selected_labels, date_created)
  SELECT CAST(value ->> 0 AS bigint), value ->> 1, value ->> 2, value ->> 3, value ->> 4 FROM ${jsonRows(dialect)}`;

const rowsOf = (searches: readonly NewSearch[]): string =>
  JSON.stringify(searches.map((search) => [search.guruId, search.externalUserId, search.query, JSON.stringify(search.labels), search.now]));

const OF_END_USER =
  'SELECT query, selected_labels, date_created FROM searches WHERE guru_id = ? AND external_user_id = ? ORDER BY id LIMIT ? OFFSET ?';

const ERASE = 'DELETE FROM searches WHERE guru_id = ? AND external_user_id = ?';

/**
 * Semantic searches as asked, kept for the end user's data bundle. A search is logged right after
 * it is answered, without waiting for the write lock: while the writer thread commits a batch of
 * sources, the search answers at once and its log entry is written when the lock is free. Reading
 * or erasing an end user's searches writes those still waiting first. Writes go one after another,
 * so that a read after them sees every search logged before it.
 */
export class SearchLogRepository {
  readonly #sql: Sql;
  readonly #insert: string;
  readonly #logger: Logger;
  #pending: NewSearch[] = [];
  #flush: NodeJS.Timeout | undefined;
  /** Settles when the last write asked for has ended. */
  #writing: Promise<unknown> = Promise.resolve();
  /** True while a write of too many waiting searches is under way. */
  #draining = false;

  constructor(sql: Sql, logger: Logger) {
    this.#sql = sql;
    this.#insert = insertRows(sql.dialect);
    this.#logger = logger;
  }

  /** The end user's searches in the guru, oldest first (pages stay stable while new searches come in). */
  async ofEndUser(guruId: number, externalUserId: string, limit: number, offset: number): Promise<LoggedSearch[]> {
    await this.writePending();
    const rows = await this.#sql.all<{ query: string; selected_labels: string; date_created: string }>(OF_END_USER, [guruId, externalUserId, limit, offset]);
    return rows.map((row) => ({
      query: row.query,
      selected_labels: JSON.parse(row.selected_labels) as string[],
      date_created: row.date_created,
    }));
  }

  /** Deletes the end user's searches in the guru; returns how many there were. */
  async eraseEndUser(guruId: number, externalUserId: string): Promise<number> {
    await this.writePending();
    return (await this.#sql.run(ERASE, [guruId, externalUserId])).changes;
  }

  record(search: NewSearch): void {
    if (this.#pending.length >= MAX_PENDING && !this.#draining) {
      this.#draining = true;
      void this.writePending()
        .catch((error: unknown) => this.#failed(error))
        .finally(() => (this.#draining = false));
    }
    this.#pending.push(search);
    this.#flush ??= setTimeout(() => this.#tryWrite(), 0);
  }

  /** Writes the searches still waiting, after any write under way (reads, erasure, close). */
  writePending(): Promise<void> {
    clearTimeout(this.#flush);
    this.#flush = undefined;
    return this.#afterWrites(async () => {
      const pending = this.#take();
      if (pending.length > 0) await this.#sql.run(this.#insert, [rowsOf(pending)]);
    });
  }

  /**
   * Writes the waiting searches once no other writer holds the store; while one does (SQLite: the
   * writer thread's commit), keeps them for later. Waiting for it, every read of the connection
   * would wait with it, so each search for the writer thread's commit.
   */
  #tryWrite(): void {
    this.#flush = undefined;
    void this.#afterWrites(async () => {
      const pending = this.#take();
      if (pending.length === 0) return;
      try {
        if (await this.#sql.runIfFree(this.#insert, [rowsOf(pending)])) return;
      } catch (error) {
        return this.#failed(error, pending.length);
      }
      this.#pending = [...pending, ...this.#pending];
      this.#flush ??= setTimeout(() => this.#tryWrite(), RETRY_MS);
    });
  }

  #take(): NewSearch[] {
    const pending = this.#pending;
    this.#pending = [];
    return pending;
  }

  /** Runs `write` once the writes asked for before it have ended. */
  #afterWrites(write: () => Promise<void>): Promise<void> {
    const next = this.#writing.then(write);
    this.#writing = next.catch(() => undefined);
    return next;
  }

  #failed(error: unknown, searches?: number): void {
    this.#logger.error('could not log searches', { ...(searches === undefined ? {} : { searches }), reason: describeError(error) });
  }
}
