/**
 * The full-text half of the index: what only a full-text engine answers (which chunks match a
 * query, how well, and where the matched words are). The Retriever asks it for that and reads
 * everything else (chunks and sources by id, neighbours, counts) in plain SQL on the store, so
 * that a store brings its own full-text search by filling this in: FTS5 for SQLite (./fts5.ts),
 * and for PostgreSQL FTS5's own BM25 computed in SQL over plain postings tables
 * (./postgres/postgres-full-text.ts).
 *
 * Queries come as parsed (`TextQuery`): `terms` are the words, `match` is the FTS5 expression made of
 * them (quoted, ORed); an implementation may use either. Callers never ask with a query of no word
 * (`match` undefined). Scores are "higher is better"; matched words are wrapped in MARK_OPEN …
 * MARK_CLOSE.
 */
import type { TextQuery } from './query.js';
import type { ChunkHit, MarkedChunk, SourceHit } from './retriever.js';

/** BM25 column weights: title, headings, body. */
export const COLUMN_WEIGHTS = { title: 2.0, headings: 1.5, body: 1.0 } as const;

/**
 * A ChunkHit's columns but its score, from `chunks c JOIN data_sources s`. Names in double quotes:
 * PostgreSQL folds unquoted names to lower case.
 */
export const CHUNK_COLUMNS = `c.id AS "chunkId", c.source_id AS "sourceId", s.type AS "sourceType", s.url AS url, c.title AS title,
  c.headings AS headings, c.body AS body, s.labels AS labels, c.position AS position`;

/** A SourceHit's columns but its id and score, from `data_sources s`. */
export const SOURCE_COLUMNS = `s.type AS "sourceType", s.url AS url, coalesce(s.title, s.name, '') AS title, s.labels AS labels`;

/** An anchor text another page links to a source with, matched words marked. */
export interface AnchorText {
  readonly sourceId: number;
  readonly marked: string;
}

export interface FullText {
  /**
   * The guru's best chunks for the query, best first, at most `limit`; with `labels` (lower case,
   * may be empty: no filter), of sources carrying one of them only. Ranked by BM25 with the column
   * weights COLUMN_WEIGHTS.
   */
  chunkHits(guruId: number, query: TextQuery, limit: number, labels: readonly string[]): Promise<ChunkHit[]>;
  /**
   * The guru's best sources, each once with its best chunk's score, best first (ties: higher source
   * id first), at most `limit`; `labels` as for chunkHits.
   */
  sourceHits(guruId: number, query: TextQuery, limit: number, labels: readonly string[]): Promise<SourceHit[]>;
  /** How many of the guru's chunks contain each term (a word alone, as a query of one term). */
  documentFrequencies(guruId: number, terms: readonly string[]): Promise<Map<string, number>>;
  /** Title, headings and body of each given chunk that matches, matched words marked; by chunk id. */
  markedChunks(query: TextQuery, chunkIds: readonly number[]): Promise<Map<number, MarkedChunk>>;
  /** The body of each given chunk that matches, matched words marked; by chunk id. */
  highlightedBodies(query: TextQuery, chunkIds: readonly number[]): Promise<Map<number, string>>;
  /**
   * The anchor texts of the guru's links to these sources (pages, by URL) that match the query,
   * matched words marked, leaving out those whose (target, text) is made by more than `navigation`
   * distinct pages (menus and headers; text compared ignoring case).
   */
  anchorTexts(guruId: number, query: TextQuery, sourceIds: readonly number[], navigation: number): Promise<AnchorText[]>;
  /**
   * Brings the index up to date with these sources' chunks and links, as just written in the
   * transaction this FullText runs on (FTS5's triggers have done it already).
   */
  indexSources(sourceIds: readonly number[]): Promise<void>;
  /**
   * After a burst of indexing, outside any transaction: lets the store make what was indexed as
   * quick to search as the rest (PostgreSQL: vacuums and analyzes the postings, so that a search
   * reads them from the index alone; FTS5: nothing to do).
   */
  settle(): Promise<void>;
  /**
   * After rows were deleted in the transaction this FullText runs on (sources, a guru): makes their
   * words leave the index for good, not only its answers.
   */
  forgetDeleted(): Promise<void>;
}
