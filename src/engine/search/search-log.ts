import { describeError, type Logger } from '../../log.js';
import { isBusy, withoutWaiting, type Db } from '../store/database.js';

/** While the write lock is taken, writing the waiting searches is tried again this often. */
const RETRY_MS = 25;
/** Searches kept waiting for the write lock at most: beyond, the next one waits for it. */
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

/**
 * Semantic searches as asked, kept for the end user's data bundle. A search is logged right after
 * it is answered, without waiting for the write lock: while the writer thread commits a batch of
 * sources, the search answers at once and its log entry is written when the lock is free. Reading
 * or erasing an end user's searches writes those still waiting first.
 */
export class SearchLogRepository {
  readonly #db: Db;
  readonly #logger: Logger;
  readonly #insert;
  readonly #insertAll;
  readonly #ofEndUser;
  readonly #erase;
  #pending: NewSearch[] = [];
  #flush: NodeJS.Timeout | undefined;

  constructor(db: Db, logger: Logger) {
    this.#db = db;
    this.#logger = logger;
    this.#insert = db.prepare<[number, string | null, string, string, string]>(
      'INSERT INTO searches (guru_id, external_user_id, query, selected_labels, date_created) VALUES (?, ?, ?, ?, ?)',
    );
    this.#ofEndUser = db.prepare<[number, string, number, number], { query: string; selected_labels: string; date_created: string }>(
      'SELECT query, selected_labels, date_created FROM searches WHERE guru_id = ? AND external_user_id = ? ORDER BY id LIMIT ? OFFSET ?',
    );
    this.#erase = db.prepare<[number, string]>('DELETE FROM searches WHERE guru_id = ? AND external_user_id = ?');
    this.#insertAll = db.transaction((searches: readonly NewSearch[]) => {
      for (const search of searches) {
        this.#insert.run(search.guruId, search.externalUserId, search.query, JSON.stringify(search.labels), search.now);
      }
    });
  }

  /** The end user's searches in the guru, oldest first (pages stay stable while new searches come in). */
  ofEndUser(guruId: number, externalUserId: string, limit: number, offset: number): LoggedSearch[] {
    this.writePending();
    return this.#ofEndUser.all(guruId, externalUserId, limit, offset).map((row) => ({
      query: row.query,
      selected_labels: JSON.parse(row.selected_labels) as string[],
      date_created: row.date_created,
    }));
  }

  /** Deletes the end user's searches in the guru; returns how many there were. */
  eraseEndUser(guruId: number, externalUserId: string): number {
    this.writePending();
    return this.#erase.run(guruId, externalUserId).changes;
  }

  record(search: NewSearch): void {
    if (this.#pending.length >= MAX_PENDING) this.writePending();
    this.#pending.push(search);
    this.#flush ??= setTimeout(() => this.#tryWrite(), 0);
  }

  /** Writes the searches still waiting, waiting for the write lock if need be (reads, erasure, close). */
  writePending(): void {
    clearTimeout(this.#flush);
    this.#flush = undefined;
    const pending = this.#pending;
    this.#pending = [];
    if (pending.length > 0) this.#insertAll.immediate(pending);
  }

  #tryWrite(): void {
    this.#flush = undefined;
    const pending = this.#pending;
    this.#pending = [];
    try {
      withoutWaiting(this.#db, () => this.#insertAll.immediate(pending));
    } catch (error) {
      if (isBusy(error)) {
        this.#pending = [...pending, ...this.#pending];
        this.#flush = setTimeout(() => this.#tryWrite(), RETRY_MS);
      } else {
        this.#logger.error('could not log searches', { searches: pending.length, reason: describeError(error) });
      }
    }
  }
}
