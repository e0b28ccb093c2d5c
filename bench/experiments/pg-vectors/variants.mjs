// Where the time of a PostgreSQL nearest-vector search goes: VectorIndex.nearest as built, the
// server reading the vectors alone (detoast), and the binary COPY alone (no comparing); then the
// same with an index on chunks(guru_id, id). Results in results.txt.
//
//   npm run build && node bench/experiments/pg-vectors/variants.mjs
//
// Guru 1 has GURU_BENCH_VECTORS vectors (default 10,000, 1,024 dimensions, random), interleaved
// with as many of guru 2's, whose chunks carry 1,500 characters of text.
import { Buffer } from 'node:buffer';
import console from 'node:console';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { transformSync } from 'esbuild';
import { dist, fixed, median, repoRoot } from '../../lib/common.js';

const DIMENSIONS = 1024;
const SIZE = Number(process.env.GURU_BENCH_VECTORS ?? 10000);
const ROUNDS = Number(process.env.GURU_BENCH_ROUNDS ?? 7);
const { VectorIndex } = await dist('engine/search/vectors.js');
const { PostgresSql } = await dist('engine/store/postgres-sql.js');
const { migratePostgres } = await dist('engine/store/postgres-migrations.js');

let seed = 7;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648) * 2 - 1;
const vectorOf = () => Float32Array.from({ length: DIMENSIONS }, random);
const blobOf = (vector) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

const scratch = mkdtempSync(join(tmpdir(), 'guru-pg-vectors-'));
const supportJs = join(scratch, 'postgres.mjs');
writeFileSync(supportJs, transformSync(readFileSync(join(repoRoot, 'test/support/postgres.ts'), 'utf8'), { loader: 'ts', format: 'esm', platform: 'node' }).code);
const { startPostgres } = await import(supportJs);
const server = await startPostgres();
const pg = PostgresSql.connect({ url: server.url, poolSize: 4 });
try {
  await migratePostgres(pg);
  for (const guru of [1, 2]) {
    await pg.run("INSERT INTO gurus (id, slug, name, date_created) VALUES (?, ?, 'g', '2026-01-01')", [guru, `g${guru}`]);
    await pg.run("INSERT INTO data_sources (id, guru_id, type, name, date_created) VALUES (?, ?, 'TEXT', 's', '2026-01-01')", [guru, guru]);
  }
  // Guru 1's chunks interleaved with as many of guru 2's, whose chunks carry 1,500 characters of text.
  for (let at = 0; at < 2 * SIZE; at += 1000) {
    const ids = [];
    const blobs = [];
    for (let id = at + 1; id <= Math.min(2 * SIZE, at + 1000); id += 1) {
      ids.push(id);
      blobs.push(blobOf(vectorOf()));
    }
    await pg.run(
      "INSERT INTO chunks (id, source_id, guru_id, position, title, headings, body) SELECT id, 1 + id % 2, 1 + id % 2, id, 't', '', repeat(md5(id::text), 47) FROM unnest(@ids::bigint[]) AS id",
      { ids },
    );
    await pg.run('INSERT INTO chunk_vectors (chunk_id, embedding) SELECT * FROM unnest(@ids::bigint[], @blobs::bytea[])', { ids, blobs });
  }
  await pg.exec('VACUUM ANALYZE');
  const index = await VectorIndex.open(pg);
  const query = vectorOf();
  const reference = (await index.nearest(1, query, 50)).map((n) => n.chunkId).join();
  const COPIED = 'SELECT v.chunk_id, v.embedding FROM chunks c JOIN chunk_vectors v ON v.chunk_id = c.id WHERE c.guru_id = 1';
  const variants = {
    'nearest() as built': async () => {
      const got = (await index.nearest(1, query, 50)).map((n) => n.chunkId).join();
      if (got !== reference) throw new Error('different result');
    },
    'server: sum(get_byte) (detoast only)': () => pg.get('SELECT sum(get_byte(v.embedding, 4095)) FROM chunks c JOIN chunk_vectors v ON v.chunk_id = c.id WHERE c.guru_id = 1'),
    'rows: COPY binary, no comparing': () => pg.copyRows(COPIED, () => {}),
  };
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`${SIZE} vectors of ${DIMENSIONS} dimensions; load ${load()}`);
  const run = async (label) => {
    for (const [name, call] of Object.entries(variants)) {
      await call();
      const samples = [];
      for (let r = 0; r < ROUNDS; r += 1) {
        const start = performance.now();
        await call();
        samples.push(performance.now() - start);
      }
      console.log(`${label.padEnd(16)} ${name.padEnd(40)} ${fixed(median(samples), 1).padStart(8)} ms`);
    }
  };
  const plan = async () => console.log((await pg.all(`EXPLAIN (ANALYZE, BUFFERS) ${COPIED}`)).map((row) => row['QUERY PLAN']).join('\n'));
  await plan();
  await run('as migrated');
  await pg.exec('CREATE INDEX chunks_guru_id ON chunks (guru_id, id)');
  await pg.exec('VACUUM ANALYZE');
  await plan();
  await run('index (guru, id)');
  console.log(`load ${load()}`);
} finally {
  await pg.close().catch(() => undefined);
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
}
