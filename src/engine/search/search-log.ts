import type { Db } from '../store/database.js';

export interface NewSearch {
  readonly guruId: number;
  readonly externalUserId: string | null;
  readonly query: string;
  readonly labels: readonly string[];
  readonly now: string;
}

/** Semantic searches as asked, kept for the end user's data bundle. */
export class SearchLogRepository {
  readonly #insert;

  constructor(db: Db) {
    this.#insert = db.prepare<[number, string | null, string, string, string]>(
      'INSERT INTO searches (guru_id, external_user_id, query, selected_labels, date_created) VALUES (?, ?, ?, ?, ?)',
    );
  }

  record(search: NewSearch): void {
    this.#insert.run(search.guruId, search.externalUserId, search.query, JSON.stringify(search.labels), search.now);
  }
}
