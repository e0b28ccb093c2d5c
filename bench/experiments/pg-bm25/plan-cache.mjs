// plan_cache_mode on the PostgreSQL store's pool: PostgreSQL's default (custom plans for the first
// five runs of a prepared statement, then a generic plan only when it looks no worse) against
// force_generic_plan (planned once per connection), on BEIR NFCorpus (3,633 documents, 323 queries).
//
//   npm run build && node bench/experiments/pg-bm25/plan-cache.mjs
//
// One throwaway PostgreSQL 15, the store's real migrations, the engine's `heading` chunks (one a
// document) indexed by PostgresFullText.indexSources in transactions of 50 sources. Two pools on it,
// one per setting; the engine's Retriever on each, in turns: search (chunkHits), searchSources,
// documentFrequencies, markedChunks and highlighted of the top 10, chunksById of the top 10.
// 3 rounds x 323 queries after a warm-up round, the two settings taking turns at going first.
import console from 'node:console';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { dist, fixed, latencyStats, table } from '../../lib/common.js';
import { corpus, queries, throwawayPostgres } from './nfcorpus.mjs';

const ROUNDS = 3;
const BATCH = 50;

const { Retriever } = await dist('engine/search/retriever.js');
const { PostgresSql } = await dist('engine/store/postgres-sql.js');
const { migratePostgres } = await dist('engine/store/postgres-migrations.js');
const { PostgresFullText } = await dist('engine/search/postgres/postgres-full-text.js');

const server = await throwawayPostgres();
const withOptions = (options) => `${server.url}?options=${encodeURIComponent(options)}`;
const pools = {
  // Explicitly the default, whatever the store sets on its own connections.
  auto: PostgresSql.connect({ url: withOptions('-c plan_cache_mode=auto'), poolSize: 4 }),
  generic: PostgresSql.connect({ url: withOptions('-c plan_cache_mode=force_generic_plan'), poolSize: 4 }),
};
try {
  const pg = pools.auto;
  await migratePostgres(pg);
  await pg.run("INSERT INTO gurus (id, slug, name, date_created) VALUES (1, 'nf', 'nf', '2026-01-01')");
  for (let i = 0; i < corpus.length; i += BATCH) {
    const batch = corpus.slice(i, i + BATCH).map((doc, j) => ({ id: i + j + 1, doc }));
    await pg.transaction(async (tx) => {
      await tx.run(
        `INSERT INTO data_sources (id, guru_id, type, name, date_created) SELECT id, 1, 'TEXT', name, '2026-01-01' FROM unnest(?::bigint[], ?::text[]) AS s(id, name)`,
        [batch.map((b) => b.id), batch.map((b) => b.doc._id)],
      );
      await tx.run(
        `INSERT INTO chunks (id, source_id, guru_id, position, title, headings, body)
         SELECT id, id, 1, 0, title, headings, body FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[]) AS c(id, title, headings, body)`,
        [batch.map((b) => b.id), batch.map((b) => b.doc._id), batch.map((b) => b.doc.title ?? ''), batch.map((b) => b.doc.text)],
      );
      await new PostgresFullText(tx).indexSources(batch.map((b) => b.id));
    });
  }
  await pg.exec('VACUUM ANALYZE');

  const retrievers = { auto: new Retriever(pools.auto), generic: new Retriever(pools.generic) };
  const tops = [];
  for (const q of queries) tops.push((await retrievers.auto.search(1, q.parsed, { limit: 10 })).map((hit) => hit.chunkId));
  const kinds = [
    ['search, limit 10', (r, q) => r.search(1, q, { limit: 10 })],
    ['searchSources, limit 20', (r, q) => r.searchSources(1, q, { limit: 20 })],
    ['search, limit 100 (excerpt candidates)', (r, q) => r.search(1, q, { limit: 100 })],
    ['documentFrequencies', (r, q) => r.documentFrequencies(1, q.terms)],
    ['markedChunks of the top 10', (r, q, ids) => r.markedChunks(q, ids)],
    ['highlighted of the top 10', (r, q, ids) => r.highlighted(q, ids)],
    ['chunksById of the top 10', (r, q, ids) => r.chunksById(ids)],
  ];
  const series = kinds.flatMap(([name, run]) => ['auto', 'generic'].map((mode) => ({ name: `${name}: ${mode}`, mode, run, samples: [] })));
  for (let round = 0; round <= ROUNDS; round += 1) {
    for (const [i, q] of queries.entries()) {
      // Each setting goes first on every other query: the one after reads pages the first just read.
      for (const s of (i + round) % 2 === 0 ? series : [...series].reverse()) {
        const start = performance.now();
        await s.run(retrievers[s.mode], q.parsed, tops[i]);
        if (round > 0) s.samples.push(performance.now() - start);
      }
    }
  }
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`NFCorpus ${corpus.length} chunks, ${queries.length} queries x ${ROUNDS} rounds; load ${load}`);
  console.log(
    table(
      ['series', 'p50 ms', 'p95 ms', 'p99 ms', 'mean ms'],
      series.map((s) => {
        const st = latencyStats(s.samples);
        return [s.name, fixed(st.p50, 2), fixed(st.p95, 2), fixed(st.p99, 2), fixed(st.mean, 2)];
      }),
    ),
  );
} finally {
  await Promise.all(Object.values(pools).map((pool) => pool.close().catch(() => undefined)));
  await server.stop();
}
