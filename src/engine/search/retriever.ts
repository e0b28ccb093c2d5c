/**
 * Lexical retrieval over a guru's chunks with FTS5's BM25, weighting the
 * source title, the heading path and the body differently.
 */
import type { DataSourceType } from '../../core/schemas.js';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../store/database.js';
import { quoteTerm, type TextQuery } from './query.js';

/** BM25 column weights: title, headings, body. */
export const COLUMN_WEIGHTS = { title: 2.0, headings: 1.5, body: 1.0 } as const;

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

const CHUNK_COLUMNS = `c.id AS chunkId, c.source_id AS sourceId, s.type AS sourceType, s.url AS url, c.title AS title,
  c.headings AS headings, c.body AS body, s.labels AS labels, c.position AS position`;

const BM25 = `bm25(chunks_fts, ${COLUMN_WEIGHTS.title}, ${COLUMN_WEIGHTS.headings}, ${COLUMN_WEIGHTS.body})`;

const LABEL_FILTER = `
  AND EXISTS (SELECT 1 FROM json_each(s.labels) l WHERE casefold(l.value) IN (SELECT value FROM json_each(@labels)))`;

/** Matching chunks of one guru, optionally of labelled sources only (only then is each one's source read). */
const matches = (labelled: boolean) => `
  FROM chunks_fts
  JOIN chunks c ON c.id = chunks_fts.rowid
  ${labelled ? 'JOIN data_sources s ON s.id = c.source_id' : ''}
  WHERE chunks_fts MATCH @match AND c.guru_id = @guruId ${labelled ? LABEL_FILTER : ''}`;

/**
 * The best chunks, ranked on their ids and scores alone: a common word matches thousands of
 * chunks, and sorting them with their text costs more than the search.
 */
const chunkHits = (labelled: boolean) => `
  WITH best AS MATERIALIZED (SELECT c.id AS id, -${BM25} AS score ${matches(labelled)} ORDER BY score DESC LIMIT @limit)
  SELECT ${CHUNK_COLUMNS}, best.score AS score
  FROM best JOIN chunks c ON c.id = best.id JOIN data_sources s ON s.id = c.source_id
  ORDER BY best.score DESC`;

const SOURCE_COLUMNS = `s.type AS sourceType, s.url AS url, coalesce(s.title, s.name, '') AS title, s.labels AS labels`;

/**
 * Each source once, with its best chunk's score (bm25() cannot sit inside an aggregate, hence the
 * CTE). Sources are ranked on their ids and scores, and only the best are read: a source's row holds
 * its whole text before its labels. Of sources with the same score, the higher id comes first (the
 * order SQLite's sorter gave them before the ranking was split).
 */
const sourceHits = (labelled: boolean) => `
  WITH scored AS MATERIALIZED (SELECT c.source_id AS sourceId, -${BM25} AS score ${matches(labelled)}),
  best AS MATERIALIZED (SELECT sourceId, max(score) AS score FROM scored GROUP BY sourceId ORDER BY score DESC, sourceId DESC LIMIT @limit)
  SELECT best.sourceId, ${SOURCE_COLUMNS}, best.score AS score
  FROM best JOIN data_sources s ON s.id = best.sourceId
  ORDER BY best.score DESC, best.sourceId DESC`;

/**
 * The best-scoring chunks of every guru, with their guru and source: FTS5 ranks them alone, without
 * reading a row of `chunks` for each match, and only the few it returns are looked up.
 */
const topChunks = `
  WITH best AS MATERIALIZED (SELECT rowid AS id, -${BM25} AS score FROM chunks_fts WHERE chunks_fts MATCH @match ORDER BY score DESC LIMIT @limit)
  SELECT best.id AS chunkId, c.guru_id AS guruId, c.source_id AS sourceId, best.score AS score
  FROM best JOIN chunks c ON c.id = best.id
  ORDER BY best.score DESC`;

/** Chunks of the whole index FTS5 ranks per wanted source before searchSources reads the guru's every match. */
const TOP_CHUNKS_PER_SOURCE = 4;

/** A statement taking named parameters. */
type NamedQuery<Row> = Statement<[Record<string, unknown>], Row>;

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

export class Retriever {
  readonly #chunks;
  readonly #sources;
  readonly #chunksById;
  readonly #chunksAround;
  readonly #chunksOfSource;
  readonly #sourcesById;
  readonly #topChunks;
  readonly #termFrequency;
  readonly #highlight;
  readonly #nearby;
  readonly #highlightAll;
  readonly #anchors;
  readonly #linkedPages;

  constructor(db: Db) {
    this.#chunks = [false, true].map((labelled) => db.prepare<Record<string, unknown>, ChunkHit>(chunkHits(labelled)));
    this.#sources = [false, true].map((labelled) => db.prepare<Record<string, unknown>, SourceHit>(sourceHits(labelled)));
    this.#chunksById = db.prepare<[string], ChunkHit>(
      `SELECT ${CHUNK_COLUMNS}, 0 AS score
       FROM chunks c JOIN data_sources s ON s.id = c.source_id WHERE c.id IN (SELECT value FROM json_each(?))`,
    );
    this.#chunksAround = db.prepare<[number, number, number], ChunkHit>(
      `SELECT ${CHUNK_COLUMNS}, 0 AS score
       FROM chunks c JOIN data_sources s ON s.id = c.source_id
       WHERE c.source_id = ? AND c.position BETWEEN ? AND ? ORDER BY c.position`,
    );
    this.#chunksOfSource = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM chunks WHERE source_id = ?');
    this.#sourcesById = db.prepare<[string], SourceHit>(
      `SELECT s.id AS sourceId, ${SOURCE_COLUMNS}, 0 AS score
       FROM data_sources s WHERE s.id IN (SELECT value FROM json_each(?))`,
    );
    this.#topChunks = db.prepare<{ match: string; limit: number }, { chunkId: number; guruId: number; sourceId: number; score: number }>(topChunks);
    this.#termFrequency = db.prepare<[string, number], { n: number }>(
      'SELECT count(*) AS n FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ? AND c.guru_id = ?',
    );
    this.#highlightAll = db.prepare<[string, string], { id: number } & MarkedChunk>(
      `SELECT rowid AS id, highlight(chunks_fts, 0, char(0xE000), char(0xE001)) AS title,
              highlight(chunks_fts, 1, char(0xE000), char(0xE001)) AS headings,
              highlight(chunks_fts, 2, char(0xE000), char(0xE001)) AS body
       FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
    );
    this.#highlight = db.prepare<[string, string], { id: number; marked: string }>(
      `SELECT rowid AS id, highlight(chunks_fts, 2, char(0xE000), char(0xE001)) AS marked
       FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
    );
    // A (target, words) pair made by more than @navigation pages is a menu or a header, not a name.
    // Links are kept by their target's URL first (a set made once), and only theirs are counted:
    // the count names s.url, not l.target, so that it runs after that.
    this.#anchors = db.prepare<Record<string, unknown>, { sourceId: number; marked: string }>(
      `SELECT s.id AS sourceId, highlight(links_fts, 0, char(0xE000), char(0xE001)) AS marked
       FROM links_fts JOIN links l ON l.id = links_fts.rowid
       JOIN data_sources s ON s.guru_id = l.guru_id AND s.url = l.target
       WHERE links_fts MATCH @match AND l.guru_id = @guruId
         AND l.target IN (SELECT url FROM data_sources WHERE id IN (SELECT value FROM json_each(@sources)))
         AND (SELECT count(DISTINCT x.source_id) FROM links x
              WHERE x.guru_id = @guruId AND x.target = s.url AND x.text = l.text COLLATE NOCASE) <= @navigation`,
    );
    this.#linkedPages = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM data_sources WHERE guru_id = ? AND url IS NOT NULL');
    this.#nearby = db.prepare<{ chunkId: number; radius: number }, NearbyChunk>(
      `SELECT n.id AS chunkId, n.source_id AS sourceId, s.type AS sourceType, s.url AS url, n.title AS title,
              n.headings AS headings, n.body AS body, s.labels AS labels, 0 AS score, n.position - c.position AS offset
       FROM chunks c
       JOIN chunks n ON n.source_id = c.source_id AND n.id <> c.id AND abs(n.position - c.position) <= @radius
       JOIN data_sources s ON s.id = n.source_id
       WHERE c.id = @chunkId
       ORDER BY abs(n.position - c.position), n.position DESC`,
    );
  }

  /** The chunks of the same source within `radius` positions of a chunk: nearest first, the following one before the preceding. */
  nearby(chunkId: number, radius: number): NearbyChunk[] {
    return this.#nearby.all({ chunkId, radius });
  }

  /** The best chunks for the query, best first. */
  search(guruId: number, query: TextQuery, options: RetrieveOptions): ChunkHit[] {
    return this.#run(this.#chunks, guruId, query, options);
  }

  /**
   * The best sources for the query, each once, ranked by their best chunk. Without labels, the
   * index's best chunks are asked for first: when they hold enough of the guru's sources, or are all
   * there is, those sources are the answer (any other source's best chunk scores no higher than the
   * last of them), and the guru's every match is scored only when they do not.
   */
  searchSources(guruId: number, query: TextQuery, options: RetrieveOptions): SourceHit[] {
    if (query.match === undefined) return [];
    if ((options.labels?.length ?? 0) === 0) {
      const found = this.#bestSourcesOfTopChunks(guruId, query.match, options.limit);
      if (found) return this.sourcesById(found.map(({ sourceId }) => sourceId)).map((hit, index) => ({ ...hit, score: found[index]?.score ?? 0 }));
    }
    return this.#run(this.#sources, guruId, query, options);
  }

  /**
   * The guru's best sources among the index's best chunks, ranked as the full query ranks them; or
   * undefined when those chunks cannot tell: too few of the guru's sources among them, or the last
   * one wanted scores no more than the last chunk (a chunk left out could tie with it).
   */
  #bestSourcesOfTopChunks(guruId: number, match: string, wanted: number): { sourceId: number; score: number }[] | undefined {
    const limit = TOP_CHUNKS_PER_SOURCE * wanted;
    const top = this.#topChunks.all({ match, limit });
    const best = new Map<number, number>();
    for (const hit of top) {
      if (hit.guruId === guruId && !best.has(hit.sourceId)) best.set(hit.sourceId, hit.score);
    }
    const ranked = [...best]
      .map(([sourceId, score]) => ({ sourceId, score }))
      .sort((a, b) => b.score - a.score || b.sourceId - a.sourceId)
      .slice(0, wanted);
    if (top.length < limit) return ranked;
    const last = ranked[wanted - 1];
    return last !== undefined && last.score > (top[limit - 1]?.score ?? Infinity) ? ranked : undefined;
  }

  /** The chunks of these ids, in the order given (ids that no longer exist are skipped). */
  chunksById(ids: readonly number[]): ChunkHit[] {
    const found = new Map(this.#chunksById.all(JSON.stringify(ids)).map((hit) => [hit.chunkId, hit]));
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  /** The chunks of a source from one position to another, in order. */
  chunksAround(sourceId: number, from: number, to: number): ChunkHit[] {
    return this.#chunksAround.all(sourceId, from, to);
  }

  /** How many chunks a source has. */
  sourceChunkCount(sourceId: number): number {
    return this.#chunksOfSource.get(sourceId)?.n ?? 0;
  }

  /** The sources of these ids, in the order given. */
  sourcesById(ids: readonly number[]): SourceHit[] {
    const found = new Map(this.#sourcesById.all(JSON.stringify(ids)).map((hit) => [hit.sourceId, hit]));
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  #run<Row>(statements: NamedQuery<Row>[], guruId: number, query: TextQuery, options: RetrieveOptions): Row[] {
    if (query.match === undefined) return [];
    const labels = options.labels?.map((label) => label.toLowerCase()) ?? [];
    const statement = statements[labels.length > 0 ? 1 : 0] as NamedQuery<Row>;
    return statement.all({ match: query.match, guruId, limit: options.limit, labels: JSON.stringify(labels) });
  }

  /** How many of the guru's chunks contain the term. */
  documentFrequency(guruId: number, term: string): number {
    return this.#termFrequency.get(quoteTerm(term), guruId)?.n ?? 0;
  }

  /** Title, headings and body of each given chunk that matches, with every matched word marked. */
  markedChunks(query: TextQuery, chunkIds: readonly number[]): Map<number, MarkedChunk> {
    if (query.match === undefined) return new Map();
    return new Map(this.#highlightAll.all(query.match, JSON.stringify(chunkIds)).map(({ id, ...marked }) => [id, marked]));
  }

  /**
   * The anchor texts that other pages link to each of these sources (pages) with, by source,
   * matched words marked: only those that match the query, and not those of menus and headers
   * (made by more than one page in twenty, or by more than one page of a site of under twenty).
   */
  anchorTexts(guruId: number, query: TextQuery, sourceIds: readonly number[]): Map<number, string[]> {
    const texts = new Map<number, string[]>();
    if (query.match === undefined || sourceIds.length === 0) return texts;
    const navigation = Math.max(1, NAVIGATION_SHARE * (this.#linkedPages.get(guruId)?.n ?? 0));
    for (const { sourceId, marked } of this.#anchors.all({ match: query.match, guruId, sources: JSON.stringify(sourceIds), navigation })) {
      const ofSource = texts.get(sourceId);
      if (ofSource) ofSource.push(marked);
      else texts.set(sourceId, [marked]);
    }
    return texts;
  }

  /** Chunk bodies with every matched word wrapped in MARK_OPEN … MARK_CLOSE. */
  highlighted(query: TextQuery, chunkIds: readonly number[]): Map<number, string> {
    if (query.match === undefined) return new Map();
    return new Map(this.#highlight.all(query.match, JSON.stringify(chunkIds)).map((row) => [row.id, row.marked]));
  }
}
