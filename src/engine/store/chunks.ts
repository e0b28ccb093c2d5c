import { jsonRows } from './dialect.js';
import type { Sql } from './sql.js';

export interface NewChunk {
  readonly position: number;
  readonly headings: readonly string[];
  readonly body: string;
}

/** Separator of a chunk's heading path, as stored and as shown. */
export const HEADING_SEPARATOR = ' › ';

export class ChunkRepository {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * Replaces every chunk of a source, the new ones in one statement (one JSON list of them). Call
   * inside a transaction. The full-text index loses the old ones with them; it gains the new ones
   * through FTS5's triggers on SQLite, and on PostgreSQL when the caller then runs
   * FullText.indexSources for the source in the same transaction.
   */
  async replace(sourceId: number, guruId: number, title: string, chunks: readonly NewChunk[]): Promise<void> {
    await this.#sql.run('DELETE FROM chunks WHERE source_id = ?', [sourceId]);
    if (chunks.length === 0) return;
    const rows = chunks.map((chunk) => [chunk.position, chunk.headings.join(HEADING_SEPARATOR), chunk.body]);
    await this.#sql.run(
      `INSERT INTO chunks (source_id, guru_id, position, title, headings, body)
       SELECT ?, ?, CAST(value ->> 0 AS BIGINT), ?, value ->> 1, value ->> 2 FROM ${jsonRows(this.#sql.dialect)}`,
      [sourceId, guruId, title, JSON.stringify(rows)],
    );
  }
}
