// semanticSearch through the engine on both stores of profile.mjs's kept index (DATABASE_URL,
// SQLITE_DIR), query by query: TURNS=1 in turns as the `stores` bench part does, else one store's
// whole round after the other's.
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { dist, fixed, latencyStats } from '../../lib/common.js';
import { readQrels, readTestQueries } from '../../parts/nfcorpus.js';

const { openBackend } = await dist('compose.js');
const { loadConfig } = await dist('config.js');
const { silentLogger } = await dist('log.js');
const open = (flags) => openBackend(loadConfig({ flags, env: {} }), silentLogger);
const stores = [
  { name: 'SQLite', backend: await open({ dataDir: `${process.env.SQLITE_DIR}/SQLite` }), samples: [] },
  { name: 'PostgreSQL', backend: await open({ dataDir: `${process.env.SQLITE_DIR}/PostgreSQL`, databaseUrl: process.env.DATABASE_URL }), samples: [] },
];
const queries = [...readTestQueries(readQrels())].map(([, question]) => question);
const search = async (store, question) => {
  const at = performance.now();
  await store.backend.assistant.semanticSearch('nf', { question });
  return performance.now() - at;
};
for (const question of queries) for (const store of stores) await search(store, question);
for (let round = 0; round < 3; round += 1) {
  if (process.env.TURNS) {
    for (const [index, question] of queries.entries()) {
      for (let turn = 0; turn < 2; turn += 1) {
        const store = stores[(turn + index + round) % 2];
        store.samples.push(await search(store, question));
      }
    }
  } else {
    for (const store of stores) for (const question of queries) store.samples.push(await search(store, question));
  }
}
for (const store of stores) {
  const s = latencyStats(store.samples);
  console.log(`${process.env.TURNS ? 'in turns' : 'apart'} ${store.name}: p50 ${fixed(s.p50, 2)} p99 ${fixed(s.p99, 2)} mean ${fixed(s.mean, 2)}`);
}
for (const store of stores) await store.backend.close();
