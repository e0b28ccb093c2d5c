// The PostgreSQL full-text statements alone, through one pg client, on the 323 NFCorpus test
// queries of an index made by profile.mjs (DATABASE_URL): p50 / p99 of each, two rounds.
import console from 'node:console';
import process from 'node:process';
import pg from 'pg';
import { dist, fixed, latencyStats, timed } from '../../lib/common.js';
import { readQrels, readTestQueries } from '../../parts/nfcorpus.js';

const mod = await dist('engine/search/postgres/postgres-full-text.js');
const { parseQuery } = await dist('engine/search/query.js');
const { numberPlaceholders } = await dist('engine/store/postgres-sql.js');
const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
await client.connect();
await client.query('SET plan_cache_mode = force_generic_plan');
const queries = [...readTestQueries(readQrels())].map(([, question]) => mod.queryTerms(parseQuery(question)));
const statements = Object.fromEntries(
  Object.entries(mod).filter(([name]) => name.endsWith('Statement')).map(([name, text]) => [name, numberPlaceholders(text)]),
);
const args = { guruId: 1, limit: 20 };
for (const [name, { text, names }] of Object.entries(statements)) {
  const samples = [];
  for (let round = 0; round < 3; round += 1) {
    for (const terms of queries) {
      const values = names.map((n) => ({ ...args, terms })[n]);
      const ms = await timed(() => client.query({ name, text, values }));
      if (round > 0) samples.push(ms);
    }
  }
  const s = latencyStats(samples);
  console.log(`${name.padEnd(24)} p50 ${fixed(s.p50, 2)}  p99 ${fixed(s.p99, 2)}  mean ${fixed(s.mean, 2)}`);
}
await client.end();
