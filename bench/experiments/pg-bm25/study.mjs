// BM25 on PostgreSQL 15 without extensions, against FTS5, on BEIR NFCorpus (323 test queries).
//
//   npm run build && node bench/experiments/pg-bm25/study.mjs
//
// Starts a throwaway PostgreSQL (test/support/postgres.ts), indexes the corpus the way the engine's
// `heading` variant does (chunk title = the source name, headings = the document title, body = the
// text; column weights 2.0 / 1.5 / 1.0 as in src/engine/search/retriever.ts), and ranks the
// queries (parseQuery's OR of words, as the engine sends them) with:
//   fts5            FTS5's bm25() in an in-memory SQLite, tokenizer 'porter unicode61 remove_diacritics 2'
//   pg ts_rank_cd   PostgreSQL's own cover-density rank over the `english` config (no IDF)
//   pg bm25 en/tsv  BM25 in SQL, tf read from the tsvector's positions (unnest), `english` config
//   pg bm25 en/post BM25 in SQL from a postings table (term, doc, tf, len), `english` config
//   pg bm25 ft/post the same, tokens made by FTS5's own tokenizer (porter) and stored as given
// Statistics kept in tables: df per term, and the corpus's document count and total length.
// Latency: 3 rounds x 323 queries after a warm-up pass, through `pg` on 127.0.0.1 (a round trip
// each), FTS5 in process (no round trip).
import console from 'node:console';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import pg from 'pg';
import { fixed, latencyStats, mean, table } from '../../lib/common.js';
import { corpus, ndcgAt10, qrels, queries, throwawayPostgres } from './nfcorpus.mjs';

const rounds = 3;
const K1 = 1.2;
const B = 0.75;
const WEIGHTS = { A: 2.0, B: 1.5, D: 1.0 }; // title, headings, body

// --- FTS5 reference, and FTS5's tokens for the `ft` variant -----------------------------------
const lite = new Database(':memory:');
lite.exec(`CREATE VIRTUAL TABLE docs USING fts5(title, headings, body, tokenize = 'porter unicode61 remove_diacritics 2');
  CREATE VIRTUAL TABLE docs_v USING fts5vocab(docs, instance);
  CREATE VIRTUAL TABLE qtok USING fts5(t, tokenize = 'porter unicode61 remove_diacritics 2');
  CREATE VIRTUAL TABLE qtok_v USING fts5vocab(qtok, instance);`);
const insert = lite.prepare('INSERT INTO docs(rowid, title, headings, body) VALUES (?, ?, ?, ?)');
lite.transaction(() => corpus.forEach((doc, i) => insert.run(i + 1, doc._id, doc.title, doc.text)))();
const fts5Search = lite.prepare(`SELECT rowid AS id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs, 2.0, 1.5, 1.0) LIMIT 10`);
/** FTS5's tokens of a text (the porter stems the index holds). */
const fts5Tokens = (text) => {
  lite.prepare('INSERT INTO qtok(rowid, t) VALUES (1, ?)').run(text);
  const terms = lite.prepare('SELECT DISTINCT term FROM qtok_v').pluck().all();
  lite.prepare('DELETE FROM qtok').run();
  return terms;
};
/**
 * What option (a) of NOTES.md costs: a chunk tokenized alone through an in-memory FTS5 table, as a
 * PostgreSQL store would before writing its postings (insert, read its instances, delete).
 */
lite.exec(`CREATE VIRTUAL TABLE ctok USING fts5(title, headings, body, tokenize = 'porter unicode61 remove_diacritics 2');
  CREATE VIRTUAL TABLE ctok_v USING fts5vocab(ctok, instance);`);
const ctokInsert = lite.prepare('INSERT INTO ctok(rowid, title, headings, body) VALUES (1, ?, ?, ?)');
const ctokRead = lite.prepare('SELECT term, col, offset FROM ctok_v');
const ctokDelete = lite.prepare('DELETE FROM ctok');
const tokenizeStart = performance.now();
let tokenCount = 0;
for (const doc of corpus) {
  ctokInsert.run(doc._id, doc.title, doc.text);
  tokenCount += ctokRead.all().length;
  ctokDelete.run();
}
const tokenizeMs = performance.now() - tokenizeStart;
const queryTokenizeStart = performance.now();
for (const q of queries) fts5Tokens(q.parsed.terms.join(' '));
const queryTokenizeMs = (performance.now() - queryTokenizeStart) / queries.length;

/** A tsvector literal of each document made of FTS5's tokens, with column weights and FTS5's length. */
const COLUMN_WEIGHT = ['A', 'B', 'D'];
const ftVectors = new Map();
for (const { doc, term, col, offset } of lite.prepare('SELECT doc, term, col, offset FROM docs_v').iterate()) {
  let v = ftVectors.get(doc);
  if (!v) ftVectors.set(doc, (v = { len: 0, terms: new Map() }));
  v.len += 1;
  const base = { title: 0, headings: 1000, body: 2000 }[col];
  if (!v.terms.has(term)) v.terms.set(term, []);
  v.terms.get(term).push(`${Math.min(16383, base + offset + 1)}${COLUMN_WEIGHT[{ title: 0, headings: 1, body: 2 }[col]]}`);
}
const tsvLiteral = (v) => [...v.terms].map(([t, ps]) => `'${t.replace(/'/g, "''").replace(/\\/g, '\\\\')}':${ps.join(',')}`).join(' ');

// --- PostgreSQL ---------------------------------------------------------------------------------
const server = await throwawayPostgres();
const client = new pg.Client({ connectionString: server.url });
try {
  await client.connect();
  const version = (await client.query('SHOW server_version')).rows[0].server_version;
  const t0 = performance.now();
  await client.query(`CREATE TABLE docs (id int PRIMARY KEY, ext_id text NOT NULL, title text, body text,
      tsv_en tsvector, len_en int, tsv_ft tsvector, len_ft int)`);
  const rows = corpus.map((doc, i) => [i + 1, doc._id, doc.title, doc.text, tsvLiteral(ftVectors.get(i + 1)), ftVectors.get(i + 1).len]);
  for (let i = 0; i < rows.length; i += 500) {
    const batch = rows.slice(i, i + 500);
    await client.query(
      `INSERT INTO docs (id, ext_id, title, body, tsv_ft, len_ft)
       SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::tsvector[], $6::int[])`,
      [0, 1, 2, 3, 4, 5].map((c) => batch.map((r) => r[c])),
    );
  }
  await client.query(`UPDATE docs SET tsv_en = setweight(to_tsvector('english', ext_id), 'A')
      || setweight(to_tsvector('english', coalesce(title, '')), 'B') || setweight(to_tsvector('english', body), 'D')`);
  // Length as FTS5 counts it is every token; the english config drops stop words, so its length is
  // the positions it keeps (both are what a BM25 over that index should normalise by).
  await client.query(`UPDATE docs SET len_en = (SELECT coalesce(sum(array_length(positions, 1)), 0) FROM unnest(tsv_en))`);
  await client.query(`CREATE INDEX docs_en ON docs USING gin (tsv_en); CREATE INDEX docs_ft ON docs USING gin (tsv_ft)`);
  const weightSql = `(SELECT sum(CASE w WHEN 'A' THEN ${WEIGHTS.A} WHEN 'B' THEN ${WEIGHTS.B} ELSE ${WEIGHTS.D} END) FROM unnest(u.weights) w)`;
  for (const v of ['en', 'ft']) {
    await client.query(`CREATE TABLE postings_${v} (term text, doc int, tf real NOT NULL, len int NOT NULL, PRIMARY KEY (term, doc))`);
    await client.query(`INSERT INTO postings_${v} SELECT u.lexeme, d.id, ${weightSql}, d.len_${v} FROM docs d, unnest(d.tsv_${v}) u`);
    await client.query(`CREATE TABLE terms_${v} (term text PRIMARY KEY, df int NOT NULL)`);
    await client.query(`INSERT INTO terms_${v} SELECT term, count(*) FROM postings_${v} GROUP BY term`);
  }
  await client.query(`CREATE TABLE corpus_stats (n int, total_en bigint, total_ft bigint)`);
  await client.query(`INSERT INTO corpus_stats SELECT count(*), sum(len_en), sum(len_ft) FROM docs`);
  await client.query('VACUUM ANALYZE');
  const indexSeconds = (performance.now() - t0) / 1000;
  const sizes = (await client.query(`SELECT relname, pg_total_relation_size(oid) AS bytes FROM pg_class
      WHERE relname IN ('docs', 'postings_en', 'postings_ft', 'terms_en', 'terms_ft', 'docs_en', 'docs_ft')`)).rows;

  const idf = () => `greatest(ln((s.n - t.df + 0.5) / (t.df + 0.5)), 1e-6)`;
  const norm = (len, v) => `(${1 - B} + ${B} * ${len}::float8 / (s.total_${v}::float8 / s.n))`;
  const bm25Postings = (v) => `
    WITH q AS MATERIALIZED (SELECT t.term, ${idf()} AS idf FROM terms_${v} t, corpus_stats s WHERE t.term = ANY($1::text[])),
    best AS (SELECT p.doc, sum(q.idf * p.tf * ${K1 + 1} / (p.tf + ${K1} * ${norm('p.len', v)})) AS score
             FROM q JOIN postings_${v} p ON p.term = q.term, corpus_stats s GROUP BY p.doc ORDER BY score DESC, p.doc LIMIT 10)
    SELECT d.ext_id FROM best JOIN docs d ON d.id = best.doc ORDER BY best.score DESC, best.doc`;
  // No df table: each query term's postings are read anyway, so their count is its df (always
  // exact, and nothing for concurrent writers to contend on).
  const bm25CountedDf = (v) => `
    WITH p AS MATERIALIZED (SELECT term, doc, tf, len, count(*) OVER (PARTITION BY term) AS df FROM postings_${v} WHERE term = ANY($1::text[])),
    best AS (SELECT p.doc, sum(greatest(ln((s.n - p.df + 0.5) / (p.df + 0.5)), 1e-6) * p.tf * ${K1 + 1} / (p.tf + ${K1} * ${norm('p.len', v)})) AS score
             FROM p, corpus_stats s GROUP BY p.doc ORDER BY score DESC, p.doc LIMIT 10)
    SELECT d.ext_id FROM best JOIN docs d ON d.id = best.doc ORDER BY best.score DESC, best.doc`;
  const bm25Tsvector = (v) => `
    WITH q AS MATERIALIZED (SELECT t.term, ${idf()} AS idf FROM terms_${v} t, corpus_stats s WHERE t.term = ANY($1::text[])),
    tf AS (SELECT d.id, d.len_${v} AS len, u.lexeme, ${weightSql} AS tf
           FROM docs d, unnest(d.tsv_${v}) u WHERE d.tsv_${v} @@ $2::tsquery AND u.lexeme = ANY($1::text[])),
    best AS (SELECT tf.id, sum(q.idf * tf.tf * ${K1 + 1} / (tf.tf + ${K1} * ${norm('tf.len', v)})) AS score
             FROM tf JOIN q ON q.term = tf.lexeme, corpus_stats s GROUP BY tf.id ORDER BY score DESC, tf.id LIMIT 10)
    SELECT d.ext_id FROM best JOIN docs d ON d.id = best.id ORDER BY best.score DESC, best.id`;
  const tsRankCd = `SELECT ext_id FROM docs WHERE tsv_en @@ $2::tsquery AND cardinality($1::text[]) > 0 ORDER BY ts_rank_cd(tsv_en, $2::tsquery) DESC, id LIMIT 10`;

  // Query terms per tokenization: the english config's lexemes of the parsed words, FTS5's stems.
  const toTsquery = (terms) => (terms.length === 0 ? '' : terms.map((t) => `'${t.replace(/'/g, "''").replace(/\\/g, '\\\\')}'`).join(' | '));
  const termsEn = [];
  for (const q of queries) {
    const lexemes = (await client.query(`SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', $1)) ORDER BY 1`, [q.parsed.terms.join(' ')])).rows;
    termsEn.push(lexemes.map((r) => r.lexeme));
  }
  const termsFt = queries.map((q) => fts5Tokens(q.parsed.terms.join(' ')));

  const series = [
    { name: 'fts5 bm25 (SQLite, in process)', run: (i) => (queries[i].parsed.match ? fts5Search.all(queries[i].parsed.match).map((r) => corpus[r.id - 1]._id) : []) },
    { name: 'pg ts_rank_cd (english)', sql: tsRankCd, terms: termsEn },
    { name: 'pg bm25, tf from tsvector (english)', sql: bm25Tsvector('en'), terms: termsEn },
    { name: 'pg bm25, postings table (english)', sql: bm25Postings('en'), terms: termsEn },
    { name: 'pg bm25, tf from tsvector (FTS5 porter tokens)', sql: bm25Tsvector('ft'), terms: termsFt },
    { name: 'pg bm25, postings table (FTS5 porter tokens)', sql: bm25Postings('ft'), terms: termsFt },
    { name: 'pg bm25, postings, df counted (FTS5 porter tokens)', sql: bm25CountedDf('ft'), terms: termsFt },
  ];
  for (const [n, s] of series.entries()) {
    if (s.sql) {
      s.run = async (i) => {
        const terms = s.terms[i];
        if (terms.length === 0) return [];
        const values = s.sql.includes('$2') ? [terms, toTsquery(terms)] : [terms];
        const { rows: found } = await client.query({ name: `s${n}`, text: s.sql, values });
        return found.map((r) => r.ext_id);
      };
    }
    s.ndcg = [];
    for (const [i, q] of queries.entries()) s.ndcg.push(ndcgAt10(await s.run(i), qrels.get(q.id)));
    s.samples = [];
  }
  // Timed in turns: each query through every series, 3 rounds.
  for (let round = 0; round < rounds; round += 1) {
    for (let i = 0; i < queries.length; i += 1) {
      for (const s of series) {
        const start = performance.now();
        await s.run(i);
        s.samples.push(performance.now() - start);
      }
    }
  }
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`PostgreSQL ${version}; NFCorpus ${corpus.length} docs, ${queries.length} test queries; load ${load}`);
  console.log(`FTS5 tokenizing in JS (in-memory table): ${fixed(tokenizeMs, 0)} ms for ${corpus.length} docs (${fixed((tokenizeMs * 1000) / corpus.length, 0)} µs a doc, ${tokenCount} tokens); ${fixed(queryTokenizeMs * 1000, 0)} µs a query`);
  console.log(`PostgreSQL indexing (insert, tsvectors, GIN, postings, stats, VACUUM ANALYZE): ${fixed(indexSeconds, 2)} s`);
  console.log(table(['relation', 'MB'], sizes.map((r) => [r.relname, fixed(Number(r.bytes) / 1048576, 2)])));
  console.log(
    table(
      ['series', 'nDCG@10', 'p50 ms', 'p95 ms', 'p99 ms'],
      series.map((s) => {
        const st = latencyStats(s.samples);
        return [s.name, fixed(mean(s.ndcg), 4), fixed(st.p50, 2), fixed(st.p95, 2), fixed(st.p99, 2)];
      }),
    ),
  );
  const ref = series[0].ndcg;
  for (const s of series.slice(1)) {
    const same = s.ndcg.filter((v, i) => Math.abs(v - ref[i]) < 1e-9).length;
    console.log(`${s.name}: per-query nDCG equal to FTS5's on ${same} of ${ref.length}`);
  }
} finally {
  await client.end().catch(() => undefined);
  await server.stop();
  lite.close();
}
