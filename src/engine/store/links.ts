import { jsonRows } from './dialect.js';
import type { Sql } from './sql.js';

/** A link of a source's text: the page it points to (without its fragment) and the words it is made with. */
export interface NewLink {
  readonly target: string;
  readonly text: string;
}

export class LinkRepository {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * Replaces every link of a source, the new ones in one statement (one JSON list of them). Call
   * inside a transaction. As for chunks (ChunkRepository.replace), the new ones reach the
   * full-text index through FTS5's triggers on SQLite, through FullText.indexSources on PostgreSQL.
   */
  async replace(sourceId: number, guruId: number, links: readonly NewLink[]): Promise<void> {
    await this.#sql.run('DELETE FROM links WHERE source_id = ?', [sourceId]);
    if (links.length === 0) return;
    await this.#sql.run(
      `INSERT INTO links (guru_id, source_id, target, text) SELECT ?, ?, value ->> 0, value ->> 1 FROM ${jsonRows(this.#sql.dialect)}`,
      [guruId, sourceId, JSON.stringify(links.map((link) => [link.target, link.text]))],
    );
  }
}
