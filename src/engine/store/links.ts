import type { Db } from './database.js';

/** A link of a source's text: the page it points to (without its fragment) and the words it is made with. */
export interface NewLink {
  readonly target: string;
  readonly text: string;
}

export class LinkRepository {
  readonly #deleteForSource;
  readonly #insert;

  constructor(db: Db) {
    this.#deleteForSource = db.prepare<[number]>('DELETE FROM links WHERE source_id = ?');
    this.#insert = db.prepare<[number, number, string, string]>('INSERT INTO links (guru_id, source_id, target, text) VALUES (?, ?, ?, ?)');
  }

  /** Replaces every link of a source; the FTS index follows through triggers. Call inside a transaction. */
  replace(sourceId: number, guruId: number, links: readonly NewLink[]): void {
    this.#deleteForSource.run(sourceId);
    for (const link of links) this.#insert.run(guruId, sourceId, link.target, link.text);
  }
}
