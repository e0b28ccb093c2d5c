import type { Db } from '../store/database.js';

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

/** Semantic searches as asked, kept for the end user's data bundle. */
export class SearchLogRepository {
  readonly #insert;
  readonly #ofEndUser;
  readonly #erase;

  constructor(db: Db) {
    this.#insert = db.prepare<[number, string | null, string, string, string]>(
      'INSERT INTO searches (guru_id, external_user_id, query, selected_labels, date_created) VALUES (?, ?, ?, ?, ?)',
    );
    this.#ofEndUser = db.prepare<[number, string, number, number], { query: string; selected_labels: string; date_created: string }>(
      'SELECT query, selected_labels, date_created FROM searches WHERE guru_id = ? AND external_user_id = ? ORDER BY id LIMIT ? OFFSET ?',
    );
    this.#erase = db.prepare<[number, string]>('DELETE FROM searches WHERE guru_id = ? AND external_user_id = ?');
  }

  /** The end user's searches in the guru, oldest first (pages stay stable while new searches come in). */
  ofEndUser(guruId: number, externalUserId: string, limit: number, offset: number): LoggedSearch[] {
    return this.#ofEndUser.all(guruId, externalUserId, limit, offset).map((row) => ({
      query: row.query,
      selected_labels: JSON.parse(row.selected_labels) as string[],
      date_created: row.date_created,
    }));
  }

  /** Deletes the end user's searches in the guru; returns how many there were. */
  eraseEndUser(guruId: number, externalUserId: string): number {
    return this.#erase.run(guruId, externalUserId).changes;
  }

  record(search: NewSearch): void {
    this.#insert.run(search.guruId, search.externalUserId, search.query, JSON.stringify(search.labels), search.now);
  }
}
