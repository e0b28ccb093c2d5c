/**
 * Chunk embeddings and nearest-neighbour search over them with sqlite-vec's
 * distance function. Exact search: fine for the tens of thousands of chunks a
 * guru holds; the extension loads only when embeddings are configured.
 */
import { sqliteOf } from '../store/sqlite-sql.js';
import type { Sql } from '../store/sql.js';

export interface EmbeddingModel {
  readonly model: string;
  readonly dimensions: number;
}

export interface ChunkText {
  readonly id: number;
  readonly text: string;
}

export interface Neighbour {
  readonly chunkId: number;
  /** Cosine distance, 0 (same direction) to 2. */
  readonly distance: number;
}

const toBlob = (vector: Float32Array): Buffer => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

const MODEL = 'SELECT model, dimensions FROM embedding_model WHERE id = 1';

const SET_MODEL = `INSERT INTO embedding_model (id, model, dimensions) VALUES (1, ?, ?)
  ON CONFLICT (id) DO UPDATE SET model = excluded.model, dimensions = excluded.dimensions`;

const MISSING = `SELECT c.id, c.title || char(10) || c.headings || char(10) || c.body AS text
  FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id
  WHERE c.source_id = ? AND v.chunk_id IS NULL ORDER BY c.id`;

const SOURCES_MISSING = 'SELECT DISTINCT c.source_id AS sourceId FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id WHERE v.chunk_id IS NULL';

// A chunk replaced while its vector was being made is gone: its vector is dropped, not an error.
const STORE = 'INSERT OR REPLACE INTO chunk_vectors (chunk_id, embedding) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)';

const NEAREST = `SELECT v.chunk_id AS chunkId, vec_distance_cosine(v.embedding, ?) AS distance
  FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id
  WHERE c.guru_id = ? ORDER BY distance LIMIT ?`;

/**
 * SQLite only: sqlite-vec's distance function, and statements written in SQLite's SQL (char(),
 * INSERT OR REPLACE, camelCase names unquoted).
 * PostgreSQL: pgvector, an embedding column of type vector, and `embedding <=> $1` for the distance.
 */
export class VectorIndex {
  readonly #sql: Sql;

  private constructor(sql: Sql) {
    this.#sql = sql;
  }

  /** Loads sqlite-vec into the store's connection. */
  static async open(sql: Sql): Promise<VectorIndex> {
    // PostgreSQL: the pgvector extension instead (CREATE EXTENSION vector), checked here.
    const db = sqliteOf(sql);
    if (!db) throw new Error('vector search needs the SQLite store (sqlite-vec)');
    const { load } = await import('sqlite-vec');
    load(db);
    return new VectorIndex(sql);
  }

  model(): Promise<EmbeddingModel | undefined> {
    return this.#sql.get(MODEL);
  }

  /** Records the model in use; when it differs from the stored vectors' model, they are all forgotten. */
  useModel(model: EmbeddingModel): Promise<boolean> {
    return this.#sql.transaction(async (tx) => {
      const current = await tx.get<EmbeddingModel>(MODEL);
      if (current?.model === model.model && current.dimensions === model.dimensions) return false;
      await tx.run('DELETE FROM chunk_vectors');
      await tx.run(SET_MODEL, [model.model, model.dimensions]);
      return current !== undefined;
    });
  }

  /** A source's chunks that have no vector yet, with the text to embed. */
  missingChunks(sourceId: number): Promise<ChunkText[]> {
    return this.#sql.all(MISSING, [sourceId]);
  }

  /** Sources with at least one chunk without a vector. */
  async sourcesMissingVectors(): Promise<number[]> {
    return (await this.#sql.all<{ sourceId: number }>(SOURCES_MISSING)).map((row) => row.sourceId);
  }

  store(vectors: ReadonlyMap<number, Float32Array>): Promise<void> {
    return this.#sql.transaction(async (tx) => {
      for (const [chunkId, vector] of vectors) await tx.run(STORE, [chunkId, toBlob(vector), chunkId]);
    });
  }

  nearest(guruId: number, vector: Float32Array, limit: number): Promise<Neighbour[]> {
    return this.#sql.all(NEAREST, [toBlob(vector), guruId, limit]);
  }
}
