// Nearest chunks by cosine distance on each store (src/engine/search/vectors.ts): sqlite-vec in
// process against PostgreSQL, where the guru's vectors are streamed by one binary COPY and compared
// in JS as they arrive (stored in their rows: migration 5).
//
//   npm run build && node bench/experiments/pg-vectors/nearest.mjs
//
// One store each, two gurus: 4,000 and 40,000 chunks with a 1,024-dimension vector each (random,
// as the provider's would be for the timing), 44,000 in the index. VectorIndex.nearest, limit 50
// (what a search asks for), 30 query vectors x 3 rounds after a warm-up, stores in turns.
// GURU_BENCH_VECTORS=4000,40000 sets the gurus' sizes.
import { Buffer } from 'node:buffer';
import console from 'node:console';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { transformSync } from 'esbuild';
import { dist, fixed, latencyStats, repoRoot, table } from '../../lib/common.js';

const DIMENSIONS = 1024;
const sizes = (process.env.GURU_BENCH_VECTORS ?? '4000,40000').split(',').map(Number);
const QUERIES = 30;
const ROUNDS = 3;
const LIMIT = 50;

const { VectorIndex } = await dist('engine/search/vectors.js');
const { openMemoryDatabase } = await dist('engine/store/database.js');
const { SqliteSql } = await dist('engine/store/sqlite-sql.js');
const { PostgresSql } = await dist('engine/store/postgres-sql.js');
const { migratePostgres } = await dist('engine/store/postgres-migrations.js');

let seed = 7;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648) * 2 - 1;
const vectorOf = () => Float32Array.from({ length: DIMENSIONS }, random);
const blobOf = (vector) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

/** A throwaway PostgreSQL 15 (test/support/postgres.ts, compiled on the fly). */
async function throwawayPostgres() {
  const scratch = mkdtempSync(join(tmpdir(), 'guru-pg-vectors-'));
  const supportJs = join(scratch, 'postgres.mjs');
  writeFileSync(supportJs, transformSync(readFileSync(join(repoRoot, 'test/support/postgres.ts'), 'utf8'), { loader: 'ts', format: 'esm', platform: 'node' }).code);
  const { startPostgres } = await import(supportJs);
  const server = await startPostgres();
  return { url: server.url, stop: async () => (await server.stop(), rmSync(scratch, { recursive: true, force: true })) };
}

const server = await throwawayPostgres();
const pg = PostgresSql.connect({ url: server.url, poolSize: 4 });
const db = openMemoryDatabase();
const lite = new SqliteSql(db);
try {
  await migratePostgres(pg);
  const fillStart = performance.now();
  let chunkId = 0;
  for (const [index, size] of sizes.entries()) {
    const guruId = index + 1;
    const row = [guruId, `g${guruId}`, `g${guruId}`];
    db.prepare("INSERT INTO gurus (id, slug, name, date_created) VALUES (?, ?, ?, '2026-01-01')").run(...row);
    db.prepare("INSERT INTO data_sources (id, guru_id, type, name, date_created) VALUES (?, ?, 'TEXT', 's', '2026-01-01')").run(guruId, guruId);
    await pg.run("INSERT INTO gurus (id, slug, name, date_created) VALUES (?, ?, ?, '2026-01-01')", row);
    await pg.run("INSERT INTO data_sources (id, guru_id, type, name, date_created) VALUES (?, ?, 'TEXT', 's', '2026-01-01')", [guruId, guruId]);
    for (let at = 0; at < size; at += 1000) {
      const ids = [];
      const blobs = [];
      for (let i = at; i < Math.min(size, at + 1000); i += 1) {
        chunkId += 1;
        ids.push(chunkId);
        blobs.push(blobOf(vectorOf()));
      }
      db.transaction(() => {
        ids.forEach((id, i) => {
          db.prepare("INSERT INTO chunks (id, source_id, guru_id, position, title, headings, body) VALUES (?, ?, ?, ?, 't', '', 'b')").run(id, guruId, guruId, id);
          db.prepare('INSERT INTO chunk_vectors (chunk_id, embedding) VALUES (?, ?)').run(id, blobs[i]);
        });
      })();
      await pg.transaction(async (tx) => {
        await tx.run(
          `INSERT INTO chunks (id, source_id, guru_id, position, title, headings, body)
           SELECT id, @guru, @guru, id, 't', '', 'b' FROM unnest(@ids::bigint[]) AS id`,
          { ids, guru: guruId },
        );
        await tx.run('INSERT INTO chunk_vectors (chunk_id, embedding) SELECT * FROM unnest(@ids::bigint[], @blobs::bytea[])', { ids, blobs });
      });
    }
  }
  await pg.exec('VACUUM ANALYZE');
  const fillMs = performance.now() - fillStart;
  const size = await pg.get("SELECT pg_total_relation_size('chunk_vectors') AS bytes");
  const [liteIndex, pgIndex] = await Promise.all([VectorIndex.open(lite), VectorIndex.open(pg)]);
  const queries = Array.from({ length: QUERIES }, vectorOf);

  const series = sizes.flatMap((chunks, index) => [
    { name: `sqlite-vec, ${chunks} chunks`, run: (q) => liteIndex.nearest(index + 1, q, LIMIT) },
    { name: `PostgreSQL, COPY + JS, ${chunks} chunks`, run: (q) => pgIndex.nearest(index + 1, q, LIMIT) },
  ]);
  let same = 0;
  for (const [index] of sizes.entries()) {
    for (const q of queries) {
      const [a, b] = await Promise.all([liteIndex.nearest(index + 1, q, LIMIT), pgIndex.nearest(index + 1, q, LIMIT)]);
      if (a.map((n) => n.chunkId).join() === b.map((n) => n.chunkId).join()) same += 1;
    }
  }
  for (const s of series) s.samples = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const q of queries) {
      for (const s of series) {
        const start = performance.now();
        await s.run(q);
        s.samples.push(performance.now() - start);
      }
    }
  }
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const version = (await pg.get('SHOW server_version')).server_version;
  console.log(`PostgreSQL ${version}; ${DIMENSIONS}-dimension vectors, gurus of ${sizes.join(', ')} chunks; load ${load}`);
  console.log(`filled both stores in ${fixed(fillMs / 1000, 1)} s; chunk_vectors on PostgreSQL ${fixed(Number(size.bytes) / 1048576, 0)} MB`);
  console.log(`same ${LIMIT} nearest chunks in the same order on ${same} of ${queries.length * sizes.length} queries`);
  console.log(
    table(
      ['series', 'p50 ms', 'p95 ms', 'p99 ms'],
      series.map((s) => {
        const st = latencyStats(s.samples);
        return [s.name, fixed(st.p50, 1), fixed(st.p95, 1), fixed(st.p99, 1)];
      }),
    ),
  );
} finally {
  await pg.close().catch(() => undefined);
  await server.stop();
  db.close();
}
