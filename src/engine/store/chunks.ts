import type { Db } from './database.js';

export interface NewChunk {
  readonly position: number;
  readonly headings: readonly string[];
  readonly body: string;
}

/** Separator of a chunk's heading path, as stored and as shown. */
export const HEADING_SEPARATOR = ' › ';

export class ChunkRepository {
  readonly #deleteForSource;
  readonly #insert;

  constructor(db: Db) {
    this.#deleteForSource = db.prepare<[number]>('DELETE FROM chunks WHERE source_id = ?');
    this.#insert = db.prepare<[number, number, number, string, string, string]>(
      'INSERT INTO chunks (source_id, guru_id, position, title, headings, body) VALUES (?, ?, ?, ?, ?, ?)',
    );
  }

  /** Replaces every chunk of a source; the FTS index follows through triggers. Call inside a transaction. */
  replace(sourceId: number, guruId: number, title: string, chunks: readonly NewChunk[]): void {
    this.#deleteForSource.run(sourceId);
    for (const chunk of chunks) {
      this.#insert.run(sourceId, guruId, chunk.position, title, chunk.headings.join(HEADING_SEPARATOR), chunk.body);
    }
  }
}
