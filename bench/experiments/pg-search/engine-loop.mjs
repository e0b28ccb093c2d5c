// semanticSearch through the engine on one store of profile.mjs's kept index (DATABASE_URL,
// SQLITE_DIR), in a loop (for --cpu-prof): STORE=pg|sqlite.
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { dist, fixed, latencyStats } from '../../lib/common.js';
import { readQrels, readTestQueries } from '../../parts/nfcorpus.js';

const { openBackend } = await dist('compose.js');
const { loadConfig } = await dist('config.js');
const { silentLogger } = await dist('log.js');
const pg = process.env.STORE === 'pg';
const flags = pg ? { dataDir: `${process.env.SQLITE_DIR}/PostgreSQL`, databaseUrl: process.env.DATABASE_URL } : { dataDir: `${process.env.SQLITE_DIR}/SQLite` };
const backend = await openBackend(loadConfig({ flags, env: {} }), silentLogger);
const queries = [...readTestQueries(readQrels())].map(([, question]) => question);
for (const question of queries) await backend.assistant.semanticSearch('nf', { question });
const samples = [];
const cpu = process.cpuUsage();
const started = performance.now();
for (let round = 0; round < 3; round += 1) {
  for (const question of queries) {
    const at = performance.now();
    await backend.assistant.semanticSearch('nf', { question });
    samples.push(performance.now() - at);
  }
}
const wall = performance.now() - started;
const used = process.cpuUsage(cpu);
const s = latencyStats(samples);
console.log(`${pg ? 'PostgreSQL' : 'SQLite'}: p50 ${fixed(s.p50, 2)} p99 ${fixed(s.p99, 2)} mean ${fixed(s.mean, 2)} ms; node CPU ${fixed((used.user + used.system) / 1000 / samples.length, 2)} ms a search; wall ${fixed(wall / samples.length, 2)}`);
await backend.close();
