/**
 * Chunk embeddings and nearest-neighbour search over them with sqlite-vec's
 * distance function. Exact search: fine for the tens of thousands of chunks a
 * guru holds; the extension loads only when embeddings are configured.
 */
import type { Db } from '../store/database.js';

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

export class VectorIndex {
  readonly #db: Db;
  readonly #model;
  readonly #setModel;
  readonly #missing;
  readonly #sourcesMissing;
  readonly #store;
  readonly #nearest;

  private constructor(db: Db) {
    this.#db = db;
    this.#model = db.prepare<[], EmbeddingModel>('SELECT model, dimensions FROM embedding_model WHERE id = 1');
    this.#setModel = db.prepare<[string, number]>(
      `INSERT INTO embedding_model (id, model, dimensions) VALUES (1, ?, ?)
       ON CONFLICT (id) DO UPDATE SET model = excluded.model, dimensions = excluded.dimensions`,
    );
    this.#missing = db.prepare<[number], ChunkText>(
      `SELECT c.id, c.title || char(10) || c.headings || char(10) || c.body AS text
       FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id
       WHERE c.source_id = ? AND v.chunk_id IS NULL ORDER BY c.id`,
    );
    this.#sourcesMissing = db.prepare<[], { sourceId: number }>(
      `SELECT DISTINCT c.source_id AS sourceId FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id WHERE v.chunk_id IS NULL`,
    );
    // A chunk replaced while its vector was being made is gone: its vector is dropped, not an error.
    this.#store = db.prepare<[number, Buffer, number]>(
      'INSERT OR REPLACE INTO chunk_vectors (chunk_id, embedding) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)',
    );
    this.#nearest = db.prepare<[Buffer, number, number], Neighbour>(
      `SELECT v.chunk_id AS chunkId, vec_distance_cosine(v.embedding, ?) AS distance
       FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id
       WHERE c.guru_id = ? ORDER BY distance LIMIT ?`,
    );
  }

  /** Loads sqlite-vec into the connection and prepares the statements. */
  static async open(db: Db): Promise<VectorIndex> {
    const { load } = await import('sqlite-vec');
    load(db);
    return new VectorIndex(db);
  }

  model(): EmbeddingModel | undefined {
    return this.#model.get();
  }

  /** Records the model in use; when it differs from the stored vectors' model, they are all forgotten. */
  useModel(model: EmbeddingModel): boolean {
    return this.#db
      .transaction(() => {
        const current = this.model();
        if (current?.model === model.model && current.dimensions === model.dimensions) return false;
        this.#db.exec('DELETE FROM chunk_vectors');
        this.#setModel.run(model.model, model.dimensions);
        return current !== undefined;
      })
      .immediate();
  }

  /** A source's chunks that have no vector yet, with the text to embed. */
  missingChunks(sourceId: number): ChunkText[] {
    return this.#missing.all(sourceId);
  }

  /** Sources with at least one chunk without a vector. */
  sourcesMissingVectors(): number[] {
    return this.#sourcesMissing.all().map((row) => row.sourceId);
  }

  store(vectors: ReadonlyMap<number, Float32Array>): void {
    this.#db
      .transaction(() => {
        for (const [chunkId, vector] of vectors) this.#store.run(chunkId, toBlob(vector), chunkId);
      })
      .immediate();
  }

  nearest(guruId: number, vector: Float32Array, limit: number): Neighbour[] {
    return this.#nearest.all(toBlob(vector), guruId, limit);
  }
}
