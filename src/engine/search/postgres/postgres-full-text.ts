/**
 * Full-text search on the PostgreSQL store: what the retriever asks of FTS5 (ranked chunks and
 * sources, document frequencies, matched words marked, links' anchor text), over the tables of
 * ./schema.ts, through the store port. BM25 is FTS5's own, term for term: k1 1.2, b 0.75, FTS5's
 * idf (ln((N − df + 0.5) / (df + 0.5)), 1e-6 when not above 0), the column weights applied to the
 * term's frequency, N and the average length over the whole index (every guru), df counted over the
 * whole index too; the tokens are FTS5's (./tokenizer.ts). So both stores return the same chunks
 * in the same order with the same scores (to the last bits of a floating-point sum), and mark the
 * same words.
 *
 * Queries are the retriever's TextQuery: `match` is read as FTS5 would read it, OR'ed quoted
 * words (parseQuery, withSynonyms); anything else is refused. A quoted word FTS5 would cut into
 * several tokens (only letters FTS5's Unicode 6.1 tables do not know: 21 code points, New Tai Lue
 * vowels and Vedic signs) is searched as those tokens each, not as a phrase.
 *
 * Indexing runs in the caller's transaction, on rows already in `chunks` and `links`.
 */
import { CHUNK_COLUMNS, COLUMN_WEIGHTS, SOURCE_COLUMNS, type AnchorText, type FullText } from '../full-text.js';
import type { ChunkHit, MarkedChunk, SourceHit } from '../retriever.js';
import type { TextQuery } from '../query.js';
import type { Sql } from '../../store/sql.js';
import { marked, spanPairs, spansByColumn } from './marks.js';
import { Fts5Tokenizer, type Token } from './tokenizer.js';

/** Sources indexed together by indexAll (their chunks are read at once). */
const SOURCES_PER_BATCH = 100;

/** Postings written per statement while indexing. */
const POSTINGS_PER_STATEMENT = 20_000;

const WEIGHTS = [COLUMN_WEIGHTS.title, COLUMN_WEIGHTS.headings, COLUMN_WEIGHTS.body] as const;

let shared: Fts5Tokenizer | undefined;
/** One tokenizer for the process (an in-memory SQLite connection), made on first use. */
const tokenizer = (): Fts5Tokenizer => (shared ??= new Fts5Tokenizer());

/** The words of an FTS5 MATCH string of OR'ed quoted words, in order (repeats kept: FTS5 scores each phrase). */
export function phrasesOf(match: string): string[] {
  const phrases: string[] = [];
  let at = 0;
  for (;;) {
    if (match[at] !== '"') throw new Error(`not a query of quoted words joined by OR: ${match.slice(0, 80)}`);
    let phrase = '';
    for (at += 1; ; at += 1) {
      if (at >= match.length) throw new Error('unterminated quoted word in the query');
      if (match[at] === '"') {
        if (match[at + 1] !== '"') break;
        at += 1;
      }
      phrase += match[at];
    }
    phrases.push(phrase);
    at += 1;
    if (at === match.length) return phrases;
    if (!match.startsWith(' OR ', at)) throw new Error(`not a query of quoted words joined by OR: ${match.slice(0, 80)}`);
    at += 4;
  }
}

/** The index terms of a query, one per phrase token, repeats kept; empty when nothing can match. */
export function queryTerms(query: TextQuery): string[] {
  if (query.match === undefined) return [];
  return phrasesOf(query.match).flatMap((phrase) => tokenizer().terms(phrase));
}

/**
 * The index's statistics and each query term's weight: FTS5's idf of the term's df over the whole
 * index, times `k`, how many of the query's phrases it stands for (`@terms` holds a term once per
 * phrase). Computed once per term rather than per posting: the logarithms were most of a
 * search's time. The df is counted from the postings' index alone.
 */
const TERM_WEIGHTS = `
  stats AS MATERIALIZED (SELECT sum(chunks)::float8 AS n, sum(tokens)::float8 / nullif(sum(chunks), 0)::float8 AS avgdl FROM full_text_stats),
  phrases AS MATERIALIZED (SELECT term COLLATE "C" AS term, count(*)::float8 AS k FROM unnest(@terms::text[]) AS term GROUP BY term),
  weights AS MATERIALIZED (
    SELECT d.term, ph.k * (CASE WHEN ${idf('d.df')} <= 0 THEN 1e-6::float8 ELSE ${idf('d.df')} END) AS w
    FROM (SELECT term, count(*) AS df FROM chunk_terms WHERE term = ANY(@terms::text[]) GROUP BY term) d
    JOIN phrases ph ON ph.term = d.term CROSS JOIN stats s)`;

/** FTS5's idf of a term found in `df` chunks. */
function idf(df: string): string {
  return `ln((s.n - ${df} + 0.5::float8) / (${df} + 0.5::float8))`;
}

/**
 * One posting's share of a chunk's score, written as fts5Bm25Function computes it (the same order
 * of operations: (k · idf) · the term-frequency part).
 */
const BM25 = `w.w * ((p.tf * (1.2::float8 + 1.0::float8)) / (p.tf + 1.2::float8 * (1::float8 - 0.75::float8 + 0.75::float8 * p.len / s.avgdl)))`;

/** The guru's postings of the query's terms, with their terms' weights. */
const SCORED = `chunk_terms p JOIN weights w ON w.term = p.term CROSS JOIN stats s
    WHERE p.term = ANY(@terms::text[]) AND p.guru_id = @guruId`;

/**
 * A chunk's score: the sum of its postings' shares, each rounded to a multiple of 2^-40. A share is
 * at most idf · 2.2 per phrase (idf < 21 below 10^9 chunks) and a query has a few dozen phrases, so
 * a score stays far below 2^13 and the sum of those multiples is exact: it does not depend on the
 * order PostgreSQL adds the rows in, which differs from chunk to chunk. Chunks FTS5 scores alike (the same words as often, the
 * same length) then tie here too, and fall in FTS5's order; the rounding moves a score by less
 * than 1e-11.
 */
const SCORE = `sum(round((${BM25}) * ${2 ** 40}::float8)) / ${2 ** 40}::float8`;

/** The guru's sources carrying one of @labels (already lower-cased), as the retriever's casefold() filter. */
const LABELLED = `AND p.source_id IN (SELECT ls.id FROM data_sources ls WHERE ls.guru_id = @guruId
    AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(ls.labels::jsonb) AS l(value) WHERE lower(l.value) = ANY(@labels::text[])))`;

/** Ties go to the lower chunk id, as FTS5 returns its matches in rowid order and SQLite's sort keeps that order. */
const chunkHits = (labelled: boolean) => `
  WITH ${TERM_WEIGHTS},
  best AS MATERIALIZED (
    SELECT p.chunk_id AS id, ${SCORE} AS score FROM ${SCORED} ${labelled ? LABELLED : ''}
    GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT @limit)
  SELECT ${CHUNK_COLUMNS}, best.score AS score
  FROM best JOIN chunks c ON c.id = best.id JOIN data_sources s ON s.id = c.source_id
  ORDER BY best.score DESC, best.id`;

/** Each source once with its best chunk's score; of equal scores the higher source id first (as the retriever). */
const sourceHits = (labelled: boolean) => `
  WITH ${TERM_WEIGHTS},
  scored AS (
    SELECT p.source_id, ${SCORE} AS score FROM ${SCORED} ${labelled ? LABELLED : ''}
    GROUP BY p.chunk_id, p.source_id),
  best AS MATERIALIZED (SELECT source_id, max(score) AS score FROM scored GROUP BY source_id ORDER BY score DESC, source_id DESC LIMIT @limit)
  SELECT best.source_id AS "sourceId", ${SOURCE_COLUMNS}, best.score AS score
  FROM best JOIN data_sources s ON s.id = best.source_id
  ORDER BY best.score DESC, best.source_id DESC`;

/** Statement texts, made once (unlabelled, labelled): the driver prepares each text once. */
const CHUNK_HITS = [chunkHits(false), chunkHits(true)] as const;
const SOURCE_HITS = [sourceHits(false), sourceHits(true)] as const;

/** The unlabelled searches, for EXPLAIN in tests and experiments. */
export const [chunkHitsStatement] = CHUNK_HITS;
export const [sourceHitsStatement] = SOURCE_HITS;

const MARKED_CHUNKS = `
  WITH m AS (SELECT chunk_id, jsonb_agg(spans) AS spans FROM chunk_terms
             WHERE term = ANY(@terms::text[]) AND chunk_id = ANY(@ids::bigint[]) GROUP BY chunk_id)
  SELECT c.id AS id, c.title AS title, c.headings AS headings, c.body AS body, m.spans AS spans FROM m JOIN chunks c ON c.id = m.chunk_id`;

/**
 * The retriever's anchor rule: links of the guru to the pages of these sources (by URL) that
 * match, except those whose words more than @navigation pages link that page with (ASCII case
 * ignored, as SQLite's NOCASE). The md5() and lower() equalities change nothing (the exact ones
 * follow) but let the store's indexes on (guru_id, md5(url)) and links(guru_id, md5(target),
 * lower(text), source_id) serve (store/postgres-migrations.ts).
 */
const ANCHORS = `
  WITH wanted AS MATERIALIZED (SELECT DISTINCT url FROM data_sources WHERE id = ANY(@sources::bigint[]) AND url IS NOT NULL),
  matched AS (
    SELECT l.id, l.text, l.target, s.id AS source_id,
      (SELECT jsonb_agg(t.spans) FROM link_terms t WHERE t.link_id = l.id AND t.term = ANY(@terms::text[])) AS spans
    FROM wanted w
    JOIN links l ON l.guru_id = @guruId AND md5(l.target) = md5(w.url) AND l.target = w.url
    JOIN data_sources s ON s.guru_id = l.guru_id AND md5(s.url) = md5(l.target) AND s.url = l.target)
  SELECT m.source_id AS "sourceId", m.text AS text, m.spans AS spans FROM matched m
  WHERE m.spans IS NOT NULL
    AND (SELECT count(DISTINCT x.source_id) FROM links x
         WHERE x.guru_id = @guruId AND md5(x.target) = md5(m.target) AND x.target = m.target
           AND lower(x.text) = lower(m.text) AND ${asciiLower('x.text')} = ${asciiLower('m.text')}) <= @navigation::float8
  ORDER BY m.id`;

function asciiLower(expression: string): string {
  return `translate(${expression}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;
}

interface ChunkRow {
  readonly id: number;
  readonly guru_id: number;
  readonly source_id: number;
  readonly title: string;
  readonly headings: string;
  readonly body: string;
}

interface LinkRow {
  readonly id: number;
  readonly guru_id: number;
  readonly text: string;
}

/** Rows of chunk postings, column by column, as the INSERT … unnest() below takes them. */
interface Postings {
  term: string[];
  chunk: number[];
  guru: number[];
  source: number[];
  tf: number[];
  len: number[];
  spans: string[];
}

export class PostgresFullText implements FullText {
  readonly #sql: Sql;

  /** Queries and writes run on `sql`: a transaction's handle (`tx`) for indexing in the caller's transaction. */
  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /** The guru's best chunks for the query, best first (only sources with one of `labels`, case ignored, when given). */
  async chunkHits(guruId: number, query: TextQuery, limit: number, labels: readonly string[]): Promise<ChunkHit[]> {
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    return this.#sql.all<ChunkHit>(CHUNK_HITS[labels.length > 0 ? 1 : 0], { terms, guruId, limit, ...(labels.length > 0 ? { labels: [...labels] } : {}) });
  }

  /** The guru's best sources, each once, ranked by their best chunk. */
  async sourceHits(guruId: number, query: TextQuery, limit: number, labels: readonly string[]): Promise<SourceHit[]> {
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    return this.#sql.all<SourceHit>(SOURCE_HITS[labels.length > 0 ? 1 : 0], { terms, guruId, limit, ...(labels.length > 0 ? { labels: [...labels] } : {}) });
  }

  /**
   * How many of the guru's chunks contain each word (as FTS5 counts the matches of the quoted
   * word), in the order given; one statement for all of them.
   */
  async documentFrequencies(guruId: number, words: readonly string[]): Promise<Map<string, number>> {
    const termsOf = words.map((word) => tokenizer().terms(word));
    const single = [...new Set(termsOf.flatMap((terms) => (terms.length === 1 ? terms : [])))];
    const counts = new Map<string, number>();
    if (single.length > 0) {
      const rows = await this.#sql.all<{ term: string; n: number }>(
        'SELECT term, count(*) AS n FROM chunk_terms WHERE term = ANY(@terms::text[]) AND guru_id = @guruId GROUP BY term',
        { terms: single, guruId },
      );
      for (const { term, n } of rows) counts.set(term, n);
    }
    // A word of several tokens is a phrase for FTS5; counted here as the chunks with its first token.
    return new Map(words.map((word, index) => {
      const terms = termsOf[index]!;
      return [word, terms.length === 0 ? 0 : (counts.get(terms[0]!) ?? 0)];
    }));
  }

  /** Title, headings and body of each given chunk that matches, every matched word marked. */
  async markedChunks(query: TextQuery, chunkIds: readonly number[]): Promise<Map<number, MarkedChunk>> {
    const rows = await this.#markedRows(query, chunkIds);
    return new Map(rows.map(({ id, title, headings, body, columns }) => [id, { title: marked(title, columns[0]!), headings: marked(headings, columns[1]!), body: marked(body, columns[2]!) }]));
  }

  /** Bodies of the given chunks that match, every matched word marked. */
  async highlightedBodies(query: TextQuery, chunkIds: readonly number[]): Promise<Map<number, string>> {
    const rows = await this.#markedRows(query, chunkIds);
    return new Map(rows.map(({ id, body, columns }) => [id, marked(body, columns[2]!)]));
  }

  async #markedRows(query: TextQuery, chunkIds: readonly number[]) {
    const terms = queryTerms(query);
    if (terms.length === 0 || chunkIds.length === 0) return [];
    const rows = await this.#sql.all<{ id: number; title: string; headings: string; body: string; spans: number[][] }>(MARKED_CHUNKS, {
      terms,
      ids: [...chunkIds],
    });
    return rows.map((row) => {
      const columns: [number, number][][] = [[], [], []];
      for (const flat of row.spans) spansByColumn(flat, columns);
      return { ...row, columns };
    });
  }

  /**
   * The anchor texts other pages link each of these sources with, matched words marked, by
   * source: only those that match the query, and not those of menus and headers.
   */
  async anchorTexts(guruId: number, query: TextQuery, sourceIds: readonly number[], navigation: number): Promise<AnchorText[]> {
    const terms = queryTerms(query);
    if (terms.length === 0 || sourceIds.length === 0) return [];
    const rows = await this.#sql.all<{ sourceId: number; text: string; spans: number[][] }>(ANCHORS, { terms, guruId, sources: [...sourceIds], navigation });
    return rows.map(({ sourceId, text, spans }) => {
      const pairs: [number, number][] = [];
      for (const flat of spans) spanPairs(flat, pairs);
      return { sourceId, marked: marked(text, pairs) };
    });
  }

  /**
   * Indexes the sources' chunks and links that are not indexed yet (all of them after their chunks
   * and links were replaced). Run it in the transaction that wrote them.
   */
  async indexSources(sourceIds: readonly number[]): Promise<void> {
    if (sourceIds.length === 0) return;
    const chunks = await this.#sql.all<ChunkRow>(
      `SELECT c.id, c.guru_id, c.source_id, c.title, c.headings, c.body FROM chunks c
       WHERE c.source_id = ANY(@ids::bigint[]) AND NOT EXISTS (SELECT 1 FROM chunk_index i WHERE i.chunk_id = c.id) ORDER BY c.id`,
      { ids: [...sourceIds] },
    );
    await this.#indexChunks(chunks);
    const links = await this.#sql.all<LinkRow>(
      `SELECT l.id, l.guru_id, l.text FROM links l
       WHERE l.source_id = ANY(@ids::bigint[]) AND NOT EXISTS (SELECT 1 FROM link_terms t WHERE t.link_id = l.id) ORDER BY l.id`,
      { ids: [...sourceIds] },
    );
    await this.#indexLinks(links);
  }

  /**
   * Indexes every source's chunks and links not indexed yet, a batch of sources at a time: after
   * rows were copied in without it (`guru-mcp migrate`'s rebuild step).
   */
  async indexAll(): Promise<void> {
    const sources = await this.#sql.all<{ id: number }>('SELECT id FROM data_sources ORDER BY id');
    for (let at = 0; at < sources.length; at += SOURCES_PER_BATCH) {
      await this.indexSources(sources.slice(at, at + SOURCES_PER_BATCH).map(({ id }) => id));
    }
  }

  /**
   * Marks the postings just written visible to every transaction (VACUUM), so that searches read
   * them from the primary key alone instead of fetching each from the table, and gives the planner
   * their statistics (ANALYZE). Autovacuum would do it too, a minute or more later. Skipped while
   * another process vacuums them.
   */
  async settle(): Promise<void> {
    await this.#sql.exec('VACUUM (ANALYZE, SKIP_LOCKED) chunk_terms');
  }

  /** The postings of deleted chunks and links went with their rows (ON DELETE CASCADE, chunk_index_removed). */
  async forgetDeleted(): Promise<void> {}

  async #indexChunks(chunks: readonly ChunkRow[]): Promise<void> {
    if (chunks.length === 0) return;
    const tokens = tokenizer().tokenize(chunks.map((chunk) => [chunk.title, chunk.headings, chunk.body]));
    const lengths = tokens.map((columns) => columns.reduce((sum, column) => sum + column.length, 0));
    await this.#sql.run(
      'INSERT INTO chunk_index (chunk_id, source_id, len) SELECT * FROM unnest(@ids::bigint[], @sources::bigint[], @lengths::integer[])',
      { ids: chunks.map((chunk) => chunk.id), sources: chunks.map((chunk) => chunk.source_id), lengths },
    );
    let postings = emptyPostings();
    for (const [index, chunk] of chunks.entries()) {
      for (const [term, { tf, spans }] of termsOfChunk(tokens[index]!)) {
        postings.term.push(term);
        postings.chunk.push(chunk.id);
        postings.guru.push(chunk.guru_id);
        postings.source.push(chunk.source_id);
        postings.tf.push(tf);
        postings.len.push(lengths[index]!);
        postings.spans.push(`{${spans.join(',')}}`);
      }
      if (postings.term.length >= POSTINGS_PER_STATEMENT) {
        await this.#writePostings(postings);
        postings = emptyPostings();
      }
    }
    await this.#writePostings(postings);
  }

  async #writePostings(postings: Postings): Promise<void> {
    if (postings.term.length === 0) return;
    await this.#sql.run(
      `INSERT INTO chunk_terms (term, chunk_id, guru_id, source_id, tf, len, spans)
       SELECT term, chunk, guru, source, tf, len, spans::integer[]
       FROM unnest(@term::text[], @chunk::bigint[], @guru::bigint[], @source::bigint[], @tf::float8[], @len::integer[], @spans::text[])
         AS p(term, chunk, guru, source, tf, len, spans)
       ORDER BY term`,
      { ...postings },
    );
  }

  async #indexLinks(links: readonly LinkRow[]): Promise<void> {
    if (links.length === 0) return;
    const tokens = tokenizer().tokenize(links.map((link) => [link.text, '', '']));
    const rows = { term: [] as string[], link: [] as number[], guru: [] as number[], spans: [] as string[] };
    for (const [index, link] of links.entries()) {
      const byTerm = new Map<string, number[]>();
      for (const token of tokens[index]![0]!) {
        const spans = byTerm.get(token.term) ?? [];
        spans.push(token.start, token.end);
        byTerm.set(token.term, spans);
      }
      for (const [term, spans] of byTerm) {
        rows.term.push(term);
        rows.link.push(link.id);
        rows.guru.push(link.guru_id);
        rows.spans.push(`{${spans.join(',')}}`);
      }
    }
    if (rows.term.length === 0) return;
    await this.#sql.run(
      `INSERT INTO link_terms (term, link_id, guru_id, spans)
       SELECT term, link, guru, spans::integer[] FROM unnest(@term::text[], @link::bigint[], @guru::bigint[], @spans::text[]) AS p(term, link, guru, spans)`,
      rows,
    );
  }
}

const emptyPostings = (): Postings => ({ term: [], chunk: [], guru: [], source: [], tf: [], len: [], spans: [] });

/** A chunk's terms: column-weighted frequency and (column, start, end) of each occurrence. */
function termsOfChunk(columns: readonly (readonly Token[])[]): Map<string, { tf: number; spans: number[] }> {
  const terms = new Map<string, { tf: number; spans: number[] }>();
  columns.forEach((tokens, column) => {
    for (const token of tokens) {
      let entry = terms.get(token.term);
      if (!entry) terms.set(token.term, (entry = { tf: 0, spans: [] }));
      entry.tf += WEIGHTS[column]!;
      entry.spans.push(column, token.start, token.end);
    }
  });
  return terms;
}
