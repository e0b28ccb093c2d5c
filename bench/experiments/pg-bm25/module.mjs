// The PostgreSQL full-text module (src/engine/search/postgres/) against the engine's FTS5 Retriever
// on BEIR NFCorpus (3,633 documents, 323 test queries).
//
//   npm run build && node bench/experiments/pg-bm25/module.mjs
//
// Both stores get the same chunks, as the engine's `heading` variant makes them (title = the source
// name, headings = the document title, body = the text), one source and one chunk a document, one
// guru. SQLite: the engine's schema in memory (FTS5 triggers). PostgreSQL: a throwaway 15
// (test/support/postgres.ts), minimal chunks/data_sources/links tables plus FULL_TEXT_SCHEMA,
// written in transactions of 50 sources as ingestion does: chunk rows, then indexSource.
// Search: Retriever.search (FTS5 through the store port's SqliteSql, in process) and
// PostgresFullText.chunkHits (a round trip through `pg`), limit 10, parseQuery's OR of words;
// 3 rounds x 323 queries after a warm-up, in turns.
// PG_OPTIONS='-c plan_cache_mode=force_generic_plan' passes settings to every connection;
// EXPLAIN=1 prints the plans of two queries.
import console from 'node:console';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { dist, fixed, latencyStats, mean, table } from '../../lib/common.js';
import { corpus, ndcgAt10, qrels, queries, throwawayPostgres } from './nfcorpus.mjs';

const rounds = 3;
const BATCH = 50;

const { Retriever } = await dist('engine/search/retriever.js');
const { openMemoryDatabase } = await dist('engine/store/database.js');
const { PostgresSql } = await dist('engine/store/postgres-sql.js');
const { SqliteSql } = await dist('engine/store/sqlite-sql.js');
const { PostgresFullText } = await dist('engine/search/postgres/postgres-full-text.js');
const { FULL_TEXT_SCHEMA } = await dist('engine/search/postgres/schema.js');
const { Fts5Tokenizer } = await dist('engine/search/postgres/tokenizer.js');

const STORE_TABLES = `
  CREATE TABLE data_sources (id bigint PRIMARY KEY, guru_id bigint NOT NULL, type text NOT NULL, url text, name text, title text,
    labels text NOT NULL DEFAULT '[]');
  CREATE TABLE chunks (id bigint PRIMARY KEY, source_id bigint NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
    guru_id bigint NOT NULL, position integer NOT NULL, title text NOT NULL, headings text NOT NULL, body text NOT NULL);
  CREATE INDEX chunks_source ON chunks (source_id, position);
  CREATE TABLE links (id bigint PRIMARY KEY, guru_id bigint NOT NULL, source_id bigint NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
    target text NOT NULL, text text NOT NULL);
  CREATE INDEX links_source ON links (source_id);`;

// --- SQLite: the engine's schema and Retriever ----------------------------------------------------
const db = openMemoryDatabase();
db.prepare(`INSERT INTO gurus (id, slug, name, date_created) VALUES (1, 'nf', 'nf', '2026-01-01')`).run();
const liteStart = performance.now();
db.transaction(() => {
  const source = db.prepare(`INSERT INTO data_sources (id, guru_id, type, name, date_created) VALUES (?, 1, 'TEXT', ?, '2026-01-01')`);
  const chunk = db.prepare('INSERT INTO chunks (id, source_id, guru_id, position, title, headings, body) VALUES (?, ?, 1, 0, ?, ?, ?)');
  corpus.forEach((doc, i) => {
    source.run(i + 1, doc._id);
    chunk.run(i + 1, i + 1, doc._id, doc.title ?? '', doc.text);
  });
})();
const liteMs = performance.now() - liteStart;
const retriever = new Retriever(new SqliteSql(db));

// Tokenizing alone (what indexSource adds in JS), in the batches indexSource makes.
const tokenizer = new Fts5Tokenizer();
const tokenizeStart = performance.now();
for (let i = 0; i < corpus.length; i += BATCH) tokenizer.tokenize(corpus.slice(i, i + BATCH).map((doc) => [doc._id, doc.title ?? '', doc.text]));
const tokenizeMs = performance.now() - tokenizeStart;
tokenizer.close();

// --- PostgreSQL ---------------------------------------------------------------------------------
const server = await throwawayPostgres();
const pg = PostgresSql.connect({ url: process.env.PG_OPTIONS ? `${server.url}?options=${encodeURIComponent(process.env.PG_OPTIONS)}` : server.url, poolSize: 4 });
try {
  const version = (await pg.get('SHOW server_version')).server_version;
  await pg.exec(STORE_TABLES);
  await pg.exec(FULL_TEXT_SCHEMA);
  let rowsMs = 0;
  let indexMs = 0;
  for (let i = 0; i < corpus.length; i += BATCH) {
    const batch = corpus.slice(i, i + BATCH).map((doc, j) => ({ id: i + j + 1, doc }));
    await pg.transaction(async (tx) => {
      const t0 = performance.now();
      await tx.run(`INSERT INTO data_sources (id, guru_id, type, name) SELECT id, 1, 'TEXT', name FROM unnest(?::bigint[], ?::text[]) AS s(id, name)`, [
        batch.map((b) => b.id),
        batch.map((b) => b.doc._id),
      ]);
      await tx.run(
        `INSERT INTO chunks (id, source_id, guru_id, position, title, headings, body)
         SELECT id, id, 1, 0, title, headings, body FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[]) AS c(id, title, headings, body)`,
        [batch.map((b) => b.id), batch.map((b) => b.doc._id), batch.map((b) => b.doc.title ?? ''), batch.map((b) => b.doc.text)],
      );
      const t1 = performance.now();
      const fullText = new PostgresFullText(tx);
      if (process.env.ONE_BY_ONE) for (const { id } of batch) await fullText.indexSources([id]);
      else await fullText.indexSources(batch.map((b) => b.id));
      const t2 = performance.now();
      rowsMs += t1 - t0;
      indexMs += t2 - t1;
    });
  }
  const analyzeStart = performance.now();
  await pg.exec(process.env.VACUUM ? 'VACUUM ANALYZE' : 'ANALYZE');
  const analyzeMs = performance.now() - analyzeStart;
  const sizes = await pg.all(`SELECT relname, pg_total_relation_size(oid) AS bytes FROM pg_class WHERE relname IN ('chunks', 'chunk_terms', 'chunk_index')`);

  const fullText = new PostgresFullText(pg);
  const series = [
    { name: 'FTS5 Retriever.search (SQLite, in process)', run: (q) => retriever.search(1, q, { limit: 10 }) },
    { name: 'PostgresFullText.chunkHits (PostgreSQL, pg round trip)', run: (q) => fullText.chunkHits(1, q, 10, []) },
    { name: 'FTS5 Retriever.searchSources, limit 10', run: (q) => retriever.searchSources(1, q, { limit: 10 }) },
    { name: 'PostgresFullText.sourceHits, limit 10', run: (q) => fullText.sourceHits(1, q, 10, []) },
    { name: 'FTS5 Retriever.documentFrequencies (one statement)', run: (q) => retriever.documentFrequencies(1, q.terms) },
    { name: 'PostgresFullText.documentFrequencies', run: (q) => fullText.documentFrequencies(1, q.terms) },
    { name: 'SELECT 1 (a pg round trip alone)', run: () => pg.get('SELECT 1 AS one') },
    { name: 'FTS5 Retriever.markedChunks of the top 10', run: (q, ids) => retriever.markedChunks(q, ids) },
    { name: 'PostgresFullText.markedChunks of the top 10', run: (q, ids) => fullText.markedChunks(q, ids) },
  ];
  const ranked = [];
  let sameOrder = 0;
  let maxDiff = 0;
  for (const q of queries) {
    const lite = await retriever.search(1, q.parsed, { limit: 10 });
    const pgHits = await fullText.chunkHits(1, q.parsed, 10, []);
    ranked.push({ lite: lite.map((h) => corpus[h.chunkId - 1]._id), pg: pgHits.map((h) => corpus[h.chunkId - 1]._id), ids: lite.map((h) => h.chunkId) });
    if (lite.map((h) => h.chunkId).join() === pgHits.map((h) => h.chunkId).join()) sameOrder += 1;
    lite.forEach((h, k) => (maxDiff = Math.max(maxDiff, Math.abs(h.score - (pgHits[k]?.score ?? Infinity)))));
  }
  if (process.env.EXPLAIN) {
    // The plan of the slowest query, and of a median one (by the postings they read).
    const { queryTerms } = await dist('engine/search/postgres/postgres-full-text.js');
    const { chunkHitsStatement } = await dist('engine/search/postgres/postgres-full-text.js');
    for (const q of [queries[0], queries[100]]) {
      const plan = await pg.all(`EXPLAIN (ANALYZE, BUFFERS) ${chunkHitsStatement}`, { terms: queryTerms(q.parsed), guruId: 1, limit: 10 });
      console.log(q.parsed.terms.join(' '), '\n', plan.map((r) => r['QUERY PLAN']).join('\n'));
    }
  }
  for (const s of series) s.samples = [];
  for (let round = 0; round < rounds; round += 1) {
    for (const [i, q] of queries.entries()) {
      for (const s of series) {
        const start = performance.now();
        await s.run(q.parsed, ranked[i].ids);
        s.samples.push(performance.now() - start);
      }
    }
  }
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`PostgreSQL ${version}; NFCorpus ${corpus.length} chunks, ${queries.length} test queries; load ${load}`);
  console.log(`nDCG@10: FTS5 ${fixed(mean(queries.map((q, i) => ndcgAt10(ranked[i].lite, qrels.get(q.id)))), 4)}, PostgreSQL ${fixed(mean(queries.map((q, i) => ndcgAt10(ranked[i].pg, qrels.get(q.id)))), 4)}; same ids in the same order on ${sameOrder} of ${queries.length} queries; largest score difference ${maxDiff.toExponential(2)}`);
  const perChunk = (ms) => `${fixed((ms * 1000) / corpus.length, 0)} µs a chunk`;
  console.log(`Indexing: SQLite (rows + FTS5 triggers) ${fixed(liteMs, 0)} ms (${perChunk(liteMs)}); PostgreSQL rows ${fixed(rowsMs, 0)} ms (${perChunk(rowsMs)}), indexSource ${fixed(indexMs, 0)} ms (${perChunk(indexMs)}), of which FTS5 tokenizing ${fixed(tokenizeMs, 0)} ms (${perChunk(tokenizeMs)}); ANALYZE ${fixed(analyzeMs, 0)} ms`);
  console.log(table(['relation', 'MB'], sizes.map((r) => [r.relname, fixed(Number(r.bytes) / 1048576, 2)])));
  console.log(
    table(
      ['series', 'p50 ms', 'p95 ms', 'p99 ms'],
      series.map((s) => {
        const st = latencyStats(s.samples);
        return [s.name, fixed(st.p50, 2), fixed(st.p95, 2), fixed(st.p99, 2)];
      }),
    ),
  );
} finally {
  await pg.close().catch(() => undefined);
  await server.stop();
  db.close();
}
