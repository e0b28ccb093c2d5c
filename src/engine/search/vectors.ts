/**
 * Chunk embeddings (float32 vectors in `chunk_vectors`, one blob a chunk) and nearest-neighbour
 * search over them by cosine distance. Exact search, over every vector of the guru: fine for the
 * tens of thousands of chunks a guru holds, and its time grows with them (docs/knowledge.md).
 *
 * SQLite: sqlite-vec's distance function in SQL; the extension loads only when embeddings are
 * configured. PostgreSQL: the same rows (bytea), streamed by a binary COPY and compared here, in JS:
 * Debian's PostgreSQL has no pgvector, and SQL cannot read a float32 out of a bytea at any useful speed.
 */
import { postgresOf, type RowCopier } from '../store/postgres-copy.js';
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

const missing = (newline: string) => `SELECT c.id, c.title || ${newline} || c.headings || ${newline} || c.body AS text
  FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id
  WHERE c.source_id = ? AND v.chunk_id IS NULL ORDER BY c.id`;

const SOURCES_MISSING =
  'SELECT DISTINCT c.source_id AS "sourceId" FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id WHERE v.chunk_id IS NULL';

// A chunk replaced while its vector was being made is gone: its vector is dropped, not an error.
const STORE = {
  sqlite: 'INSERT OR REPLACE INTO chunk_vectors (chunk_id, embedding) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)',
  postgres: `INSERT INTO chunk_vectors (chunk_id, embedding) SELECT c.id, ?::bytea FROM chunks c WHERE c.id = ?
    ON CONFLICT (chunk_id) DO UPDATE SET embedding = excluded.embedding`,
} as const;

const NEAREST = `SELECT v.chunk_id AS chunkId, vec_distance_cosine(v.embedding, ?) AS distance
  FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id
  WHERE c.guru_id = ? ORDER BY distance LIMIT ?`;

/** PostgreSQL: the guru's vectors, for a binary COPY (which takes no parameters: the id is a safe integer). */
const VECTORS_OF_GURU = (guruId: number) => {
  if (!Number.isSafeInteger(guruId)) throw new TypeError(`not a guru id: ${guruId}`);
  return `SELECT v.chunk_id, v.embedding FROM chunks c JOIN chunk_vectors v ON v.chunk_id = c.id WHERE c.guru_id = ${guruId}`;
};

export class VectorIndex {
  readonly #sql: Sql;

  private constructor(sql: Sql) {
    this.#sql = sql;
  }

  /** On SQLite, loads sqlite-vec into the store's connection; PostgreSQL needs nothing. */
  static async open(sql: Sql): Promise<VectorIndex> {
    const db = sqliteOf(sql);
    if (db) {
      const { load } = await import('sqlite-vec');
      load(db);
    }
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
    return this.#sql.all(missing(this.#sql.dialect === 'sqlite' ? 'char(10)' : 'chr(10)'), [sourceId]);
  }

  /** Sources with at least one chunk without a vector. */
  async sourcesMissingVectors(): Promise<number[]> {
    return (await this.#sql.all<{ sourceId: number }>(SOURCES_MISSING)).map((row) => row.sourceId);
  }

  store(vectors: ReadonlyMap<number, Float32Array>): Promise<void> {
    return this.#sql.transaction(async (tx) => {
      for (const [chunkId, vector] of vectors) {
        if (tx.dialect === 'sqlite') await tx.run(STORE.sqlite, [chunkId, toBlob(vector), chunkId]);
        else await tx.run(STORE.postgres, [toBlob(vector), chunkId]);
      }
    });
  }

  /** The guru's chunks nearest to the vector, nearest first, at most `limit`. */
  nearest(guruId: number, vector: Float32Array, limit: number): Promise<Neighbour[]> {
    const postgres = postgresOf(this.#sql);
    if (!postgres) return this.#sql.all(NEAREST, [toBlob(vector), guruId, limit]);
    return nearestStreamed(postgres, guruId, vector, limit);
  }
}

/**
 * PostgreSQL: every vector of the guru compared with the one asked for as it arrives (one binary
 * COPY: the vectors' bytes as stored, not hex text), the nearest kept. Vectors of another length
 * (none, unless the model changed under way) are skipped; of equal distances the lower chunk id
 * comes first, whatever order the rows come in.
 */
async function nearestStreamed(postgres: RowCopier, guruId: number, vector: Float32Array, limit: number): Promise<Neighbour[]> {
  if (limit <= 0) return [];
  const nearest = new Nearest(vector, limit);
  // Each row's bytes are copied here (aligned, as a Float32Array must be); the kept neighbours hold no vector.
  const stored = new Float32Array(vector.length);
  const bytes = new Uint8Array(stored.buffer);
  await postgres.copyRows(VECTORS_OF_GURU(guruId), ([id, embedding]) => {
    if (!id || embedding?.length !== bytes.length) return;
    bytes.set(embedding);
    nearest.consider(Number(id.readBigInt64BE(0)), stored);
  });
  return nearest.neighbours();
}

/**
 * The `limit` vectors nearest to a query vector among those considered, by cosine distance computed
 * as sqlite-vec computes it (sums in float32, the rest in double, the distance rounded to float32),
 * so that both stores order the same vectors alike.
 */
class Nearest {
  readonly #query: Float32Array;
  readonly #queryNorm: number;
  readonly #limit: number;
  /** Nearest first. */
  readonly #kept: Neighbour[] = [];

  constructor(query: Float32Array, limit: number) {
    this.#query = query;
    let squares = 0;
    for (const value of query) squares = fround(squares + fround(value * value));
    this.#queryNorm = Math.sqrt(squares);
    this.#limit = limit;
  }

  consider(chunkId: number, vector: Float32Array): void {
    const query = this.#query;
    if (vector.length !== query.length) return;
    let dot = 0;
    let squares = 0;
    for (let i = 0; i < vector.length; i += 1) {
      const value = vector[i]!;
      dot = fround(dot + fround(value * query[i]!));
      squares = fround(squares + fround(value * value));
    }
    const distance = fround(1 - dot / (Math.sqrt(squares) * this.#queryNorm));
    // A zero vector has no direction: it is as far as can be.
    const neighbour = { chunkId, distance: Number.isNaN(distance) ? 2 : distance };
    const kept = this.#kept;
    if (kept.length === this.#limit && !before(neighbour, kept[kept.length - 1]!)) return;
    let low = 0;
    let high = kept.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (before(kept[middle]!, neighbour)) low = middle + 1;
      else high = middle;
    }
    kept.splice(low, 0, neighbour);
    if (kept.length > this.#limit) kept.pop();
  }

  neighbours(): Neighbour[] {
    return [...this.#kept];
  }
}

const fround = Math.fround;

const before = (a: Neighbour, b: Neighbour): boolean => a.distance < b.distance || (a.distance === b.distance && a.chunkId < b.chunkId);
