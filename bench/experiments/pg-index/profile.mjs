// Where indexing NFCorpus into the PostgreSQL store spends its time (issue 30): a throwaway
// PostgreSQL with pg_stat_statements, NFCorpus added through the built engine (as the `stores`
// bench's retrieval step does), then the wall time and the statements' server time, heaviest
// first. `npm run build` first. Run with node --cpu-prof to see the JS side.
//   node bench/experiments/pg-index/profile.mjs [documents]
import { execFileSync } from 'node:child_process';
import console from 'node:console';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { URL } from 'node:url';
import pg from 'pg';
import { batchSize, dist } from '../../lib/common.js';
import { waitUntilProcessed } from '../../lib/engine.js';
import { PG_BIN, startPostgres } from '../../lib/services.js';
import { readCorpus } from '../../parts/nfcorpus.js';

const documents = Number(process.argv[2] ?? Number.POSITIVE_INFINITY);
const server = await startPostgres();
const admin = async (database, work) => {
  const client = new pg.Client({ host: server.dir, port: server.port, user: 'postgres', database });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};
const dataDir = mkdtempSync(join(tmpdir(), 'guru-pg-index-'));
try {
  await admin('postgres', (c) => c.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"));
  execFileSync('runuser', ['-u', 'postgres', '--', join(PG_BIN, 'pg_ctl'), '-D', join(server.dir, 'data'), '-w', 'restart'], { stdio: 'ignore' });
  await admin('postgres', (c) => c.query('CREATE EXTENSION pg_stat_statements'));
  const url = await server.freshDatabase();
  const { openBackend } = await dist('compose.js');
  const { loadConfig } = await dist('config.js');
  const { silentLogger } = await dist('log.js');
  const corpus = readCorpus().slice(0, documents);
  const backend = await openBackend(loadConfig({ flags: { dataDir, databaseUrl: url }, env: {} }), silentLogger);
  try {
    await backend.admin.createGuru({ slug: 'nfcorpus', name: 'NFCorpus' });
    await admin('postgres', (c) => c.query('SELECT pg_stat_statements_reset()'));
    const started = performance.now();
    for (let offset = 0; offset < corpus.length; offset += batchSize) {
      await backend.assistant.createDataSources('nfcorpus', {
        text_sources: corpus.slice(offset, offset + batchSize).map((doc) => ({ name: doc._id, content: `# ${doc.title}\n\n${doc.text}` })),
      });
    }
    await waitUntilProcessed(backend.assistant, 'nfcorpus');
    const seconds = (performance.now() - started) / 1000;
    console.log(`${corpus.length} documents indexed in ${seconds.toFixed(2)} s (load ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);
    const rows = await admin('postgres', (c) =>
      c.query(`SELECT calls, round(total_exec_time::numeric, 0) AS ms, round((total_exec_time / calls)::numeric, 3) AS per_call, rows,
        left(regexp_replace(query, '\\s+', ' ', 'g'), GREATEST(150, 0)) AS query FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 25`));
    const total = await admin('postgres', (c) => c.query('SELECT round(sum(total_exec_time)::numeric, 0) AS ms, sum(calls) AS calls FROM pg_stat_statements'));
    console.log(`server time, all statements: ${total.rows[0].ms} ms in ${total.rows[0].calls} calls`);
    for (const r of rows.rows) console.log(`${String(r.ms).padStart(7)} ms ${String(r.calls).padStart(7)} × ${String(r.per_call).padStart(8)} ms ${String(r.rows).padStart(8)} rows  ${r.query}`);
    const sizes = await admin(new URL(url).pathname.slice(1), (c) =>
      c.query(`SELECT relname, pg_size_pretty(pg_total_relation_size(oid)) AS total, pg_size_pretty(pg_relation_size(oid)) AS heap
        FROM pg_class WHERE relname IN ('chunk_terms', 'chunk_terms_pkey', 'chunk_terms_chunk', 'chunk_index', 'link_terms', 'chunks') ORDER BY relname`));
    for (const r of sizes.rows) console.log(`${r.relname}: ${r.heap} (with indexes ${r.total})`);
  } finally {
    await backend.close();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  await server.stop();
}
