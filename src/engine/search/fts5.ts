/**
 * Full-text search with SQLite's FTS5 (tables chunks_fts and links_fts, kept by the store): BM25
 * with the column weights COLUMN_WEIGHTS, and highlight() for the matched words. SQLite only:
 * MATCH, bm25(), highlight(), json_each() and casefold() (registered by the engine) are SQLite's.
 */
import type { Sql } from '../store/sql.js';
import { CHUNK_COLUMNS, COLUMN_WEIGHTS, SOURCE_COLUMNS, type AnchorText, type FullText } from './full-text.js';
import { quoteTerm, type TextQuery } from './query.js';
import type { ChunkHit, MarkedChunk, SourceHit } from './retriever.js';

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

/**
 * Each source once, with its best chunk's score (bm25() cannot sit inside an aggregate, hence the
 * CTE). Sources are ranked on their ids and scores, and only the best are read: a source's row holds
 * its whole text before its labels. Of sources with the same score, the higher id comes first (the
 * order SQLite's sorter gave them before the ranking was split).
 */
const sourceHits = (labelled: boolean) => `
  WITH scored AS MATERIALIZED (SELECT c.source_id AS sourceId, -${BM25} AS score ${matches(labelled)}),
  best AS MATERIALIZED (SELECT sourceId, max(score) AS score FROM scored GROUP BY sourceId ORDER BY score DESC, sourceId DESC LIMIT @limit)
  SELECT best.sourceId AS "sourceId", ${SOURCE_COLUMNS}, best.score AS score
  FROM best JOIN data_sources s ON s.id = best.sourceId
  ORDER BY best.score DESC, best.sourceId DESC`;

/** Chunks of the whole index ranked per wanted source before sourceHits scores the guru's every match. */
const TOP_CHUNKS_PER_SOURCE = 4;

/** Statement texts, made once: the driver prepares each text once. */
const CHUNK_HITS = chunkHits(false);
const CHUNK_HITS_LABELLED = chunkHits(true);
const SOURCE_HITS = sourceHits(false);
const SOURCE_HITS_LABELLED = sourceHits(true);

/**
 * The best-scoring chunks of every guru, with their guru and source: FTS5 ranks them alone, without
 * reading a row of `chunks` for each match, and only the few it returns are looked up.
 */
const TOP_CHUNKS = `
  WITH best AS MATERIALIZED (SELECT rowid AS id, -${BM25} AS score FROM chunks_fts WHERE chunks_fts MATCH @match ORDER BY score DESC LIMIT @limit)
  SELECT best.id AS chunkId, c.guru_id AS guruId, c.source_id AS sourceId, best.score AS score
  FROM best JOIN chunks c ON c.id = best.id
  ORDER BY best.score DESC`;

const SOURCES_BY_ID = `SELECT s.id AS "sourceId", ${SOURCE_COLUMNS} FROM data_sources s WHERE s.id IN (SELECT value FROM json_each(?))`;

/** Each term (quoted, as one-term queries) with its count of the guru's chunks, in the order given. */
const TERM_FREQUENCIES = `
  SELECT (SELECT count(*) FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
          WHERE chunks_fts MATCH t.value AND c.guru_id = @guruId) AS n
  FROM json_each(@terms) t ORDER BY t.key`;

const MARKED_CHUNKS = `
  SELECT rowid AS id, highlight(chunks_fts, 0, char(0xE000), char(0xE001)) AS title,
         highlight(chunks_fts, 1, char(0xE000), char(0xE001)) AS headings,
         highlight(chunks_fts, 2, char(0xE000), char(0xE001)) AS body
  FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`;

const HIGHLIGHTED_BODIES = `
  SELECT rowid AS id, highlight(chunks_fts, 2, char(0xE000), char(0xE001)) AS marked
  FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`;

// A (target, words) pair made by more than @navigation pages is a menu or a header, not a name.
// Links are kept by their target's URL first (a set made once), and only theirs are counted:
// the count names s.url, not l.target, so that it runs after that.
const ANCHOR_TEXTS = `
  SELECT s.id AS sourceId, highlight(links_fts, 0, char(0xE000), char(0xE001)) AS marked
  FROM links_fts JOIN links l ON l.id = links_fts.rowid
  JOIN data_sources s ON s.guru_id = l.guru_id AND s.url = l.target
  WHERE links_fts MATCH @match AND l.guru_id = @guruId
    AND l.target IN (SELECT url FROM data_sources WHERE id IN (SELECT value FROM json_each(@sources)))
    AND (SELECT count(DISTINCT x.source_id) FROM links x
         WHERE x.guru_id = @guruId AND x.target = s.url AND x.text = l.text COLLATE NOCASE) <= @navigation`;

export class Fts5FullText implements FullText {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  chunkHits(guruId: number, query: TextQuery, limit: number, labels: readonly string[]): Promise<ChunkHit[]> {
    return this.#sql.all(labels.length > 0 ? CHUNK_HITS_LABELLED : CHUNK_HITS, { match: query.match, guruId, limit, labels: JSON.stringify(labels) });
  }

  /**
   * Without labels, the index's best chunks are asked for first: when they hold enough of the
   * guru's sources, or are all there is, those sources are the answer (any other source's best
   * chunk scores no higher than the last of them), and the guru's every match is scored only when
   * they do not. FTS5 ranks the index without reading a row per match, so that is the cheaper
   * way for most queries.
   */
  async sourceHits(guruId: number, query: TextQuery, limit: number, labels: readonly string[]): Promise<SourceHit[]> {
    if (labels.length === 0) {
      const found = await this.#bestSourcesOfTopChunks(guruId, query, limit);
      if (found) return found;
    }
    return this.#sql.all(labels.length > 0 ? SOURCE_HITS_LABELLED : SOURCE_HITS, { match: query.match, guruId, limit, labels: JSON.stringify(labels) });
  }

  /**
   * The guru's best sources among the index's best chunks, ranked as the full query ranks them; or
   * undefined when those chunks cannot tell: too few of the guru's sources among them, or the last
   * one wanted scores no more than the last chunk (a chunk left out could tie with it).
   */
  async #bestSourcesOfTopChunks(guruId: number, query: TextQuery, wanted: number): Promise<SourceHit[] | undefined> {
    const limit = TOP_CHUNKS_PER_SOURCE * wanted;
    const top = await this.#sql.all<{ guruId: number; sourceId: number; score: number }>(TOP_CHUNKS, { match: query.match, limit });
    const best = new Map<number, number>();
    for (const hit of top) {
      if (hit.guruId === guruId && !best.has(hit.sourceId)) best.set(hit.sourceId, hit.score);
    }
    const ranked = [...best]
      .map(([sourceId, score]) => ({ sourceId, score }))
      .sort((a, b) => b.score - a.score || b.sourceId - a.sourceId)
      .slice(0, wanted);
    const last = ranked[wanted - 1];
    const tells = top.length < limit || (last !== undefined && last.score > (top[limit - 1]?.score ?? Infinity));
    if (!tells) return undefined;
    const rows = await this.#sql.all<Omit<SourceHit, 'score'>>(SOURCES_BY_ID, [JSON.stringify(ranked.map(({ sourceId }) => sourceId))]);
    const sources = new Map(rows.map((row) => [row.sourceId, row]));
    return ranked.flatMap(({ sourceId, score }) => {
      const source = sources.get(sourceId);
      return source ? [{ ...source, score }] : [];
    });
  }

  async documentFrequencies(guruId: number, terms: readonly string[]): Promise<Map<string, number>> {
    if (terms.length === 0) return new Map();
    const rows = await this.#sql.all<{ n: number }>(TERM_FREQUENCIES, { guruId, terms: JSON.stringify(terms.map(quoteTerm)) });
    return new Map(terms.map((term, index) => [term, rows[index]?.n ?? 0]));
  }

  async markedChunks(query: TextQuery, chunkIds: readonly number[]): Promise<Map<number, MarkedChunk>> {
    const rows = await this.#sql.all<{ id: number } & MarkedChunk>(MARKED_CHUNKS, [query.match, JSON.stringify(chunkIds)]);
    return new Map(rows.map(({ id, ...marked }) => [id, marked]));
  }

  async highlightedBodies(query: TextQuery, chunkIds: readonly number[]): Promise<Map<number, string>> {
    const rows = await this.#sql.all<{ id: number; marked: string }>(HIGHLIGHTED_BODIES, [query.match, JSON.stringify(chunkIds)]);
    return new Map(rows.map((row) => [row.id, row.marked]));
  }

  anchorTexts(guruId: number, query: TextQuery, sourceIds: readonly number[], navigation: number): Promise<AnchorText[]> {
    return this.#sql.all(ANCHOR_TEXTS, { match: query.match, guruId, sources: JSON.stringify(sourceIds), navigation });
  }

  /** The triggers on chunks and links keep FTS5's tables in step as rows are written. */
  async indexSources(): Promise<void> {}

  /** FTS5 merges its own segments as it goes. */
  async settle(): Promise<void> {}

  /**
   * FTS5 records a deletion as a tombstone and leaves the words in their old segments (and in the
   * file) until a merge rewrites them: each index is merged into one segment ('optimize'), which
   * drops the deleted entries; the pages freed are overwritten (secure_delete, store/database.ts).
   * FTS5's own `secure-delete` option was measured too and is slower: on 300 sources of 40
   * sections (16 MB), deleting 250 of them at once took 41 s with it against 0.15 s with the merge,
   * and with it left on, reindexing the 300 took 7.5 s against 0.6 to 1.7 s. The merge costs one
   * rewrite of the indexes per deletion, whatever the number of ids: 56 ms on that database.
   */
  async forgetDeleted(): Promise<void> {
    for (const index of ['chunks_fts', 'links_fts']) await this.#sql.exec(`INSERT INTO ${index}(${index}) VALUES ('optimize')`);
  }
}
