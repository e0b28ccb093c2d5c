// Where a semantic_search's time goes on each store: NFCorpus indexed into SQLite and a throwaway
// PostgreSQL through the engine, then, query by query in turns, the engine's semanticSearch and
// the steps it takes, timed alone on a second store handle of the same data.
//
//   npm run build && node bench/experiments/pg-search/profile.mjs
import console from 'node:console';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { batchSize, dist, fixed, latencyStats, table, timed } from '../../lib/common.js';
import { waitUntilProcessed } from '../../lib/engine.js';
import { startPostgres } from '../../lib/services.js';
import { readCorpus, readQrels, readTestQueries } from '../../parts/nfcorpus.js';

const rounds = Number(process.env.ROUNDS ?? 2);
const { openBackend } = await dist('compose.js');
const { loadConfig } = await dist('config.js');
const { silentLogger } = await dist('log.js');
const { openStore } = await dist('engine/store/open-store.js');
const { Retriever, fullTextOf } = await dist('engine/search/retriever.js');
const { parseQuery } = await dist('engine/search/query.js');

const corpus = readCorpus();
const queries = [...readTestQueries(readQrels())].map(([, question]) => question);
// DATABASE_URL and SQLITE_DIR reuse an index made by an earlier run (kept, not removed).
const kept = process.env.DATABASE_URL !== undefined && process.env.SQLITE_DIR !== undefined;
const server = kept ? undefined : await startPostgres();
const dirs = [];
const stores = [];
try {
  for (const [name, databaseUrl] of [['SQLite', undefined], ['PostgreSQL', kept ? process.env.DATABASE_URL : await server.freshDatabase()]]) {
    const dataDir = kept ? join(process.env.SQLITE_DIR, name) : mkdtempSync(join(tmpdir(), 'guru-pg-search-'));
    if (!kept) dirs.push(dataDir);
    const flags = databaseUrl ? { dataDir, databaseUrl } : { dataDir };
    const backend = await openBackend(loadConfig({ flags, env: {} }), silentLogger);
    const made = (await backend.admin.listGurus()).some((guru) => guru.slug === 'nf');
    if (!made) await backend.admin.createGuru({ slug: 'nf', name: 'NFCorpus' });
    for (let at = 0; !made && at < corpus.length; at += batchSize) {
      await backend.assistant.createDataSources('nf', {
        text_sources: corpus.slice(at, at + batchSize).map((doc) => ({ name: doc._id, content: `# ${doc.title}\n\n${doc.text}` })),
      });
    }
    await waitUntilProcessed(backend.assistant, 'nf');
    const sql = await openStore({ dataDir, databaseUrl, logger: silentLogger });
    const guruId = (await sql.get("SELECT id FROM gurus WHERE slug = 'nf'")).id;
    stores.push({ name, backend, sql, guruId, retriever: new Retriever(sql), fullText: fullTextOf(sql), samples: {} });
    console.error(`${name} indexed`);
  }
  const steps = {
    'semanticSearch (engine)': (s, q) => s.backend.assistant.semanticSearch('nf', { question: q }),
    'guru lookup': (s) => s.sql.get("SELECT * FROM gurus WHERE slug = 'nf'"),
    'SELECT 1': (s) => s.sql.get('SELECT 1 AS one'),
    'Retriever.searchSources 20': (s, q) => s.retriever.searchSources(s.guruId, parseQuery(q), { limit: 20 }),
    'FullText.sourceHits 20': (s, q) => s.fullText.sourceHits(s.guruId, parseQuery(q), 20, []),
    'FullText.chunkHits 100': (s, q) => s.fullText.chunkHits(s.guruId, parseQuery(q), 100, []),
    'sourcesById 10': (s) => s.retriever.sourcesById([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
    'search log row (a transaction)': (s, q) =>
      s.sql.transaction((tx) => tx.run('INSERT INTO searches (guru_id, external_user_id, query, selected_labels, date_created) VALUES (?, NULL, ?, ?, ?)', [s.guruId, q, '[]', new Date().toISOString()])),
  };
  for (const q of queries) for (const s of stores) for (const step of Object.values(steps)) await step(s, q);
  for (let round = 0; round < rounds; round += 1) {
    for (const [index, q] of queries.entries()) {
      for (let turn = 0; turn < stores.length; turn += 1) {
        const s = stores[(turn + index + round) % stores.length];
        for (const [step, call] of Object.entries(steps)) (s.samples[step] ??= []).push(await timed(() => call(s, q)));
      }
    }
  }
  console.log(`NFCorpus, ${queries.length} queries x ${rounds} rounds, load ${loadavg()[0].toFixed(1)}; ms p50 / p99`);
  console.log(
    table(
      ['step', ...stores.map((s) => s.name), 'ratio p50'],
      Object.keys(steps).map((step) => {
        const [a, b] = stores.map((s) => latencyStats(s.samples[step]));
        return [step, `${fixed(a.p50, 2)} / ${fixed(a.p99, 2)}`, `${fixed(b.p50, 2)} / ${fixed(b.p99, 2)}`, fixed(b.p50 / a.p50, 1)];
      }),
    ),
  );
} finally {
  for (const s of stores) {
    await s.sql.close();
    await s.backend.close();
  }
  await server?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
