/**
 * Lexical retrieval over a guru's chunks with BM25, weighting the source title, the heading path
 * and the body differently: the ranking and the marking of matched words come from the store's
 * full-text search (./full-text.ts), the rest is read in SQL both stores speak.
 */
import type { DataSourceType } from '../../core/schemas.js';
import { jsonValues } from '../store/dialect.js';
import type { Sql } from '../store/sql.js';
import { Fts5FullText } from './fts5.js';
import { PostgresFullText } from './postgres/postgres-full-text.js';
import { CHUNK_COLUMNS, SOURCE_COLUMNS, type FullText } from './full-text.js';
import type { TextQuery } from './query.js';

/** A link made with the same words by more than this share of a site's pages is navigation. */
const NAVIGATION_SHARE = 0.05;

/** Private-use code points that wrap every matched word in highlighted text. */
export const MARK_OPEN = '\uE000';
export const MARK_CLOSE = '\uE001';

export interface ChunkHit {
  readonly chunkId: number;
  readonly sourceId: number;
  readonly sourceType: DataSourceType;
  readonly url: string | null;
  readonly title: string;
  readonly headings: string;
  readonly body: string;
  readonly labels: string;
  /** 0-based order of the chunk within its source. */
  readonly position: number;
  /** Higher is better (negated BM25). */
  readonly score: number;
}

export interface RetrieveOptions {
  readonly limit: number;
  /** Only sources carrying one of these labels (case-insensitive). */
  readonly labels?: readonly string[];
}

/** A chunk's columns with every matched word wrapped in MARK_OPEN … MARK_CLOSE. */
export interface MarkedChunk {
  readonly title: string;
  readonly headings: string;
  readonly body: string;
}

export type SourceHit = Pick<ChunkHit, 'sourceId' | 'sourceType' | 'url' | 'title' | 'labels' | 'score'>;

/** A chunk of the same source as another, `offset` positions after it (before it when negative). */
export interface NearbyChunk extends ChunkHit {
  readonly offset: number;
}

const CHUNKS_AROUND = `SELECT ${CHUNK_COLUMNS}, 0 AS score
  FROM chunks c JOIN data_sources s ON s.id = c.source_id
  WHERE c.source_id = ? AND c.position BETWEEN ? AND ? ORDER BY c.position`;

const CHUNKS_OF_SOURCE = 'SELECT count(*) AS n FROM chunks WHERE source_id = ?';

const CHUNKS_OF_GURU = 'SELECT count(*) AS n FROM chunks WHERE guru_id = ?';

const LINKED_PAGES = 'SELECT count(*) AS n FROM data_sources WHERE guru_id = ? AND url IS NOT NULL';

const NEARBY = `SELECT n.id AS "chunkId", n.source_id AS "sourceId", s.type AS "sourceType", s.url AS url, n.title AS title,
    n.headings AS headings, n.body AS body, s.labels AS labels, 0 AS score, n.position - c.position AS "offset"
  FROM chunks c
  JOIN chunks n ON n.source_id = c.source_id AND n.id <> c.id AND abs(n.position - c.position) <= @radius
  JOIN data_sources s ON s.id = n.source_id
  WHERE c.id = @chunkId
  ORDER BY abs(n.position - c.position), n.position DESC`;

/** The full-text search of the store. */
export function fullTextOf(sql: Sql): FullText {
  return sql.dialect === 'sqlite' ? new Fts5FullText(sql) : new PostgresFullText(sql);
}

export class Retriever {
  readonly #sql: Sql;
  readonly #fullText: FullText;
  readonly #chunksById: string;
  readonly #sourcesById: string;

  constructor(sql: Sql, fullText: FullText = fullTextOf(sql)) {
    this.#sql = sql;
    this.#fullText = fullText;
    this.#chunksById = `SELECT ${CHUNK_COLUMNS}, 0 AS score
      FROM chunks c JOIN data_sources s ON s.id = c.source_id WHERE c.id IN ${jsonValues(sql.dialect, 'integer')}`;
    this.#sourcesById = `SELECT s.id AS "sourceId", ${SOURCE_COLUMNS}, 0 AS score
      FROM data_sources s WHERE s.id IN ${jsonValues(sql.dialect, 'integer')}`;
  }

  /** The chunks of the same source within `radius` positions of a chunk: nearest first, the following one before the preceding. */
  nearby(chunkId: number, radius: number): Promise<NearbyChunk[]> {
    return this.#sql.all(NEARBY, { chunkId, radius });
  }

  /** The best chunks for the query, best first. */
  async search(guruId: number, query: TextQuery, options: RetrieveOptions): Promise<ChunkHit[]> {
    if (query.match === undefined) return [];
    return this.#fullText.chunkHits(guruId, query, options.limit, lowerCase(options.labels));
  }

  /** The best sources for the query, each once, ranked by their best chunk. */
  async searchSources(guruId: number, query: TextQuery, options: RetrieveOptions): Promise<SourceHit[]> {
    if (query.match === undefined) return [];
    return this.#fullText.sourceHits(guruId, query, options.limit, lowerCase(options.labels));
  }

  /** The chunks of these ids, in the order given (ids that no longer exist are skipped). */
  async chunksById(ids: readonly number[]): Promise<ChunkHit[]> {
    const found = new Map((await this.#sql.all<ChunkHit>(this.#chunksById, [JSON.stringify(ids)])).map((hit) => [hit.chunkId, hit]));
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  /** The chunks of a source from one position to another, in order. */
  chunksAround(sourceId: number, from: number, to: number): Promise<ChunkHit[]> {
    return this.#sql.all(CHUNKS_AROUND, [sourceId, from, to]);
  }

  /** How many chunks a source has. */
  async sourceChunkCount(sourceId: number): Promise<number> {
    return (await this.#sql.get<{ n: number }>(CHUNKS_OF_SOURCE, [sourceId]))?.n ?? 0;
  }

  /** How many chunks the guru's index holds. */
  async guruChunkCount(guruId: number): Promise<number> {
    return (await this.#sql.get<{ n: number }>(CHUNKS_OF_GURU, [guruId]))?.n ?? 0;
  }

  /** The sources of these ids, in the order given. */
  async sourcesById(ids: readonly number[]): Promise<SourceHit[]> {
    const found = new Map((await this.#sql.all<SourceHit>(this.#sourcesById, [JSON.stringify(ids)])).map((hit) => [hit.sourceId, hit]));
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  /** How many of the guru's chunks contain each term. */
  documentFrequencies(guruId: number, terms: readonly string[]): Promise<Map<string, number>> {
    return this.#fullText.documentFrequencies(guruId, terms);
  }

  /** Title, headings and body of each given chunk that matches, with every matched word marked. */
  async markedChunks(query: TextQuery, chunkIds: readonly number[]): Promise<Map<number, MarkedChunk>> {
    if (query.match === undefined) return new Map();
    return this.#fullText.markedChunks(query, chunkIds);
  }

  /**
   * The anchor texts that other pages link to each of these sources (pages) with, by source,
   * matched words marked: only those that match the query, and not those of menus and headers
   * (made by more than one page in twenty, or by more than one page of a site of under twenty).
   */
  async anchorTexts(guruId: number, query: TextQuery, sourceIds: readonly number[]): Promise<Map<number, string[]>> {
    const texts = new Map<number, string[]>();
    if (query.match === undefined || sourceIds.length === 0) return texts;
    const linkedPages = (await this.#sql.get<{ n: number }>(LINKED_PAGES, [guruId]))?.n ?? 0;
    const navigation = Math.max(1, NAVIGATION_SHARE * linkedPages);
    for (const { sourceId, marked } of await this.#fullText.anchorTexts(guruId, query, sourceIds, navigation)) {
      const ofSource = texts.get(sourceId);
      if (ofSource) ofSource.push(marked);
      else texts.set(sourceId, [marked]);
    }
    return texts;
  }

  /** Chunk bodies with every matched word wrapped in MARK_OPEN … MARK_CLOSE. */
  async highlighted(query: TextQuery, chunkIds: readonly number[]): Promise<Map<number, string>> {
    if (query.match === undefined) return new Map();
    return this.#fullText.highlightedBodies(query, chunkIds);
  }
}

const lowerCase = (labels: readonly string[] | undefined): string[] => labels?.map((label) => label.toLowerCase()) ?? [];
