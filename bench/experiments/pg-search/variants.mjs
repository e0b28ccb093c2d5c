// Variants of the PostgreSQL source-ranking statement against the engine's, on the index of
// profile.mjs (DATABASE_URL): same rows (ids and scores) for the 323 NFCorpus test queries, and
// p50 / mean over two timed rounds, the variants in turns. `idfPerTerm` was the variant measured
// against the engine's statement of the time (NOTES.md, item 2); the engine's is that one now.
import assert from 'node:assert/strict';
import console from 'node:console';
import process from 'node:process';
import pg from 'pg';
import { dist, fixed, latencyStats, timed } from '../../lib/common.js';
import { readQrels, readTestQueries } from '../../parts/nfcorpus.js';

const mod = await dist('engine/search/postgres/postgres-full-text.js');
const { parseQuery } = await dist('engine/search/query.js');
const { numberPlaceholders } = await dist('engine/store/postgres-sql.js');

const STATS = `stats AS MATERIALIZED (SELECT sum(chunks)::float8 AS n, sum(tokens)::float8 / nullif(sum(chunks), 0)::float8 AS avgdl FROM full_text_stats)`;
const PHRASES = `phrases AS MATERIALIZED (SELECT term COLLATE "C" AS term, count(*)::float8 AS k FROM unnest(@terms::text[]) AS term GROUP BY term)`;
const IDF = `ln((s.n - d.df + 0.5::float8) / (d.df + 0.5::float8))`;
const WEIGHTS = `weights AS MATERIALIZED (
    SELECT d.term, ph.k * (CASE WHEN ${IDF} <= 0 THEN 1e-6::float8 ELSE ${IDF} END) AS w
    FROM (SELECT p.term, count(*) AS df FROM chunk_terms p WHERE p.term = ANY(@terms::text[]) GROUP BY p.term) d
    JOIN phrases ph ON ph.term = d.term CROSS JOIN stats s)`;
const SHARE = `w.w * ((p.tf * (1.2::float8 + 1.0::float8)) / (p.tf + 1.2::float8 * (1::float8 - 0.75::float8 + 0.75::float8 * p.len / s.avgdl)))`;
const SCORE = `sum(round((${SHARE}) * ${2 ** 40}::float8)) / ${2 ** 40}::float8`;

const variants = {
  current: mod.sourceHitsStatement,
  idfPerTerm: `
  WITH ${STATS}, ${PHRASES}, ${WEIGHTS},
  scored AS (
    SELECT p.source_id, ${SCORE} AS score FROM chunk_terms p JOIN weights w ON w.term = p.term CROSS JOIN stats s
    WHERE p.term = ANY(@terms::text[]) AND p.guru_id = @guruId
    GROUP BY p.chunk_id, p.source_id),
  best AS MATERIALIZED (SELECT source_id, max(score) AS score FROM scored GROUP BY source_id ORDER BY score DESC, source_id DESC LIMIT @limit)
  SELECT best.source_id AS "sourceId", s.type AS "sourceType", s.url AS url, coalesce(s.title, s.name, '') AS title, s.labels AS labels,
    best.score AS score
  FROM best JOIN data_sources s ON s.id = best.source_id
  ORDER BY best.score DESC, best.source_id DESC`,
};

const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
await client.connect();
await client.query('SET plan_cache_mode = force_generic_plan');
const queries = [...readTestQueries(readQrels())].map(([, question]) => mod.queryTerms(parseQuery(question)));
const prepared = Object.fromEntries(Object.entries(variants).map(([name, text]) => [name, numberPlaceholders(text)]));
const run = (name, terms) => {
  const { text, names } = prepared[name];
  return client.query({ name, text, values: names.map((n) => ({ guruId: 1, limit: 20, terms })[n]) });
};
for (const terms of queries) {
  const expected = (await run('current', terms)).rows;
  for (const name of Object.keys(variants)) assert.deepEqual((await run(name, terms)).rows, expected, `${name}: ${terms}`);
}
const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < 2; round += 1) {
  for (const terms of queries) for (const name of Object.keys(variants)) samples[name].push(await timed(() => run(name, terms)));
}
for (const [name, values] of Object.entries(samples)) {
  const s = latencyStats(values);
  console.log(`${name.padEnd(14)} p50 ${fixed(s.p50, 3)}  p99 ${fixed(s.p99, 2)}  mean ${fixed(s.mean, 3)}`);
}
await client.end();
if (process.env.EXPLAIN) {
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  const { text, names } = prepared[process.env.EXPLAIN];
  const values = names.map((n) => ({ guruId: 1, limit: 20, terms: ['statin', 'caus', 'breast', 'cancer'] })[n]);
  for (let i = 0; i < 6; i += 1) await c.query({ name: 'e', text: `EXPLAIN (ANALYZE) ${text}`, values });
  console.log((await c.query({ name: 'e', text: `EXPLAIN (ANALYZE) ${text}`, values })).rows.map((row) => row['QUERY PLAN']).join('\n'));
  await c.end();
}
