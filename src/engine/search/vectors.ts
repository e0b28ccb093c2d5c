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
  await postgres.copyRows(VECTORS_OF_GURU(guruId), ([id, embedding]) => {
    if (id && embedding) nearest.consider(Number(id.readBigInt64BE(0)), embedding);
  });
  return nearest.neighbours();
}

/** Vectors compared in one pass: their sums are independent, so the processor works on them together. */
const AT_ONCE = 4;

/**
 * The `limit` vectors nearest to a query vector among those considered, by cosine distance computed
 * as sqlite-vec computes it (sums in float32, in order, the rest in double, the distance rounded to
 * float32), so that both stores order the same vectors alike. Vectors are compared four at a time:
 * each one's sums are the same as alone, but a float32 sum waits for its previous step, and four
 * sums side by side take little longer than one (the comparing takes about 40 % less time).
 */
class Nearest {
  readonly #query: Float32Array;
  readonly #queryNorm: number;
  readonly #limit: number;
  /** Nearest first. */
  readonly #kept: Neighbour[] = [];
  /** The vectors waiting to be compared (copied: a row's bytes are not kept by the caller), and their chunks. */
  readonly #waiting: Float32Array;
  readonly #waitingBytes: Uint8Array;
  readonly #waitingIds: number[] = [];

  constructor(query: Float32Array, limit: number) {
    this.#query = query;
    let squares = 0;
    for (const value of query) squares = fround(squares + fround(value * value));
    this.#queryNorm = Math.sqrt(squares);
    this.#limit = limit;
    this.#waiting = new Float32Array(AT_ONCE * query.length);
    this.#waitingBytes = new Uint8Array(this.#waiting.buffer);
  }

  /** A stored vector (float32 bytes, as sqlite-vec reads them); one of another length is skipped. */
  consider(chunkId: number, bytes: Uint8Array): void {
    const length = this.#query.length * 4;
    if (bytes.length !== length) return;
    const ids = this.#waitingIds;
    this.#waitingBytes.set(bytes, ids.length * length);
    ids.push(chunkId);
    if (ids.length === AT_ONCE) this.#compareWaiting();
  }

  neighbours(): Neighbour[] {
    this.#compareWaiting();
    return [...this.#kept];
  }

  #compareWaiting(): void {
    const ids = this.#waitingIds;
    if (ids.length === AT_ONCE) {
      const [a, b, c, d] = this.#fourDistances();
      this.#keep(ids[0]!, a);
      this.#keep(ids[1]!, b);
      this.#keep(ids[2]!, c);
      this.#keep(ids[3]!, d);
    } else {
      ids.forEach((id, at) => this.#keep(id, this.#distance(at * this.#query.length)));
    }
    ids.length = 0;
  }

  /** The distance of the waiting vector that starts at `offset`. */
  #distance(offset: number): number {
    const query = this.#query;
    const vectors = this.#waiting;
    let dot = 0;
    let squares = 0;
    for (let i = 0; i < query.length; i += 1) {
      const value = vectors[offset + i]!;
      dot = fround(dot + fround(value * query[i]!));
      squares = fround(squares + fround(value * value));
    }
    return this.#cosine(dot, squares);
  }

  /** The distances of the four waiting vectors, each summed as #distance sums it. */
  #fourDistances(): [number, number, number, number] {
    const query = this.#query;
    const vectors = this.#waiting;
    const n = query.length;
    let dot0 = 0;
    let dot1 = 0;
    let dot2 = 0;
    let dot3 = 0;
    let squares0 = 0;
    let squares1 = 0;
    let squares2 = 0;
    let squares3 = 0;
    for (let i = 0; i < n; i += 1) {
      const q = query[i]!;
      const v0 = vectors[i]!;
      const v1 = vectors[n + i]!;
      const v2 = vectors[2 * n + i]!;
      const v3 = vectors[3 * n + i]!;
      dot0 = fround(dot0 + fround(v0 * q));
      squares0 = fround(squares0 + fround(v0 * v0));
      dot1 = fround(dot1 + fround(v1 * q));
      squares1 = fround(squares1 + fround(v1 * v1));
      dot2 = fround(dot2 + fround(v2 * q));
      squares2 = fround(squares2 + fround(v2 * v2));
      dot3 = fround(dot3 + fround(v3 * q));
      squares3 = fround(squares3 + fround(v3 * v3));
    }
    return [this.#cosine(dot0, squares0), this.#cosine(dot1, squares1), this.#cosine(dot2, squares2), this.#cosine(dot3, squares3)];
  }

  #cosine(dot: number, squares: number): number {
    const distance = fround(1 - dot / (Math.sqrt(squares) * this.#queryNorm));
    // A zero vector has no direction: it is as far as can be.
    return Number.isNaN(distance) ? 2 : distance;
  }

  #keep(chunkId: number, distance: number): void {
    const neighbour = { chunkId, distance };
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
}

const fround = Math.fround;

const before = (a: Neighbour, b: Neighbour): boolean => a.distance < b.distance || (a.distance === b.distance && a.chunkId < b.chunkId);
