/**
 * Hybrid search with an OpenAI-compatible embeddings endpoint, on each store (SQLite: sqlite-vec;
 * PostgreSQL: the same rows compared in batches): vectors are made in the background, search finds
 * texts by meaning, and whenever the provider is away search stays lexical and says so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../src/engine/local-engine.js';
import { VectorIndex } from '../../src/engine/search/vectors.js';
import { openMemoryDatabase } from '../../src/engine/store/database.js';
import { migratePostgres } from '../../src/engine/store/postgres-migrations.js';
import { PostgresSql } from '../../src/engine/store/postgres-sql.js';
import type { Store } from '../../src/engine/store/sql.js';
import { SqliteSql } from '../../src/engine/store/sqlite-sql.js';
import { freshDatabase } from '../support/postgres-databases.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';
import { startEmbeddingsStandIn, type EmbeddingsStandIn } from '../stand-ins/embeddings.js';

const TEXTS = [
  { name: 'Workshop', content: 'Our workshop does automobile servicing on weekdays.' },
  { name: 'Bakery', content: 'The bakery sells sourdough loaf every morning.' },
  { name: 'Billing', content: 'Invoices are sent on the first of the month.' },
];

let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 120_000);

afterAll(async () => {
  await postgres?.stop();
});

describe.each(['sqlite', 'postgres'] as const)('hybrid search with embeddings (%s)', (store) => {
  let dir: string;
  let databaseUrl: string | undefined;
  let provider: EmbeddingsStandIn;
  let engine: LocalEngine;

  const open = (model = 'concepts-v1') =>
    LocalEngine.open({ dataDir: dir, ...(databaseUrl === undefined ? {} : { databaseUrl }), embeddings: { baseUrl: provider.baseUrl, model } });

  /** The first row of a statement, read on the store beside the engine. */
  const read = async <Row>(statement: string): Promise<Row | undefined> => {
    if (databaseUrl === undefined) {
      const db = new Database(join(dir, 'guru.sqlite'), { readonly: true });
      try {
        return db.prepare(statement).get() as Row | undefined;
      } finally {
        db.close();
      }
    }
    const sql = PostgresSql.connect({ url: databaseUrl, poolSize: 1 });
    try {
      return await sql.get<Row>(statement);
    } finally {
      await sql.close();
    }
  };

  const vectorCount = async () => (await read<{ n: number }>('SELECT count(*) AS n FROM chunk_vectors'))?.n;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-embeddings-'));
    databaseUrl = store === 'postgres' ? await freshDatabase(postgres) : undefined;
    provider = await startEmbeddingsStandIn();
    engine = await open();
    await engine.createGuru({ slug: 'shop' });
    await engine.createDataSources('shop', { text_sources: TEXTS });
    await engine.whenIdle();
  });

  afterEach(async () => {
    await engine.close();
    await provider.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('embeds every chunk, and finds a text by meaning where its words differ', async () => {
    expect(await vectorCount()).toBe(3);
    const result = await engine.semanticSearch('shop', { question: 'car repair' });
    expect(result.search_mode).toBe('hybrid');
    expect(result.sources[0]?.title).toBe('Workshop');
  });

  it('searches lexically, and says so, while the provider is away', async () => {
    provider.down = true;
    const result = await engine.semanticSearch('shop', { question: 'sourdough' });
    expect(result).toMatchObject({ search_mode: 'lexical', total_sources: 1, sources: [{ title: 'Bakery' }] });
    expect((await engine.semanticSearch('shop', { question: 'car repair' })).total_sources).toBe(0);
  });

  it('keeps indexing while the provider is away, and embeds once it is back', async () => {
    provider.down = true;
    await engine.createDataSources('shop', { text_sources: [{ name: 'Garage', content: 'The garage can fix any vehicle.' }] });
    const listed = await engine.listDataSources('shop', { page: 1, page_size: 10 });
    await expect.poll(async () => (await engine.listDataSources('shop', { page: 1, page_size: 10 })).results[0]?.status).toBe('SUCCESS');
    expect(listed.count).toBe(4);
    expect(await vectorCount()).toBe(3);
    provider.down = false;
    await engine.whenIdle();
    expect(await vectorCount()).toBe(4);
  });

  it('makes all vectors anew when the model changes', async () => {
    await engine.close();
    engine = await open('concepts-v2');
    await expect.poll(() => provider.embedded.get('concepts-v2')?.length ?? 0).toBeGreaterThanOrEqual(4); // probe + 3 chunks
    await engine.whenIdle();
    expect(await vectorCount()).toBe(3);
    expect(await read('SELECT model FROM embedding_model')).toEqual({ model: 'concepts-v2' });
  });

  it('searches lexically without embeddings configured', async () => {
    await engine.close();
    engine = await LocalEngine.open({ dataDir: dir, ...(databaseUrl === undefined ? {} : { databaseUrl }) });
    expect(await engine.semanticSearch('shop', { question: 'sourdough' })).toMatchObject({ search_mode: 'lexical', total_sources: 1 });
  });
});

describe('nearest chunks on each store', () => {
  const DIMENSIONS = 16;
  /** Over two gurus, interleaved. */
  const CHUNKS = 2_300;
  let lite: Store;
  let pg: Store;

  /** Deterministic vectors in every direction (some coordinates negative). */
  let seed = 42;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648) * 2 - 1;
  const vectors = new Map<number, Float32Array>();
  for (let id = 1; id <= CHUNKS; id += 1) vectors.set(id, Float32Array.from({ length: DIMENSIONS }, random));

  const fill = async (sql: Store) => {
    await sql.transaction(async (tx) => {
      for (const guruId of [1, 2]) {
        await tx.run("INSERT INTO gurus (id, slug, name, date_created) VALUES (?, ?, ?, '2026-01-01')", [guruId, `g${guruId}`, `g${guruId}`]);
        await tx.run("INSERT INTO data_sources (id, guru_id, type, name, date_created) VALUES (?, ?, 'TEXT', ?, '2026-01-01')", [guruId, guruId, `s${guruId}`]);
      }
      for (let id = 1; id <= CHUNKS; id += 1) {
        // Two chunks in three are the first guru's, the others the second's, interleaved.
        const guruId = id % 3 === 0 ? 2 : 1;
        await tx.run("INSERT INTO chunks (id, source_id, guru_id, position, title, headings, body) VALUES (?, ?, ?, ?, 't', '', 'b')", [id, guruId, guruId, id]);
      }
    });
    const index = await VectorIndex.open(sql);
    await index.useModel({ model: 'random', dimensions: DIMENSIONS });
    await index.store(vectors);
    return index;
  };

  let liteIndex: VectorIndex;
  let pgIndex: VectorIndex;

  beforeAll(async () => {
    lite = new SqliteSql(openMemoryDatabase());
    pg = PostgresSql.connect({ url: await freshDatabase(postgres), poolSize: 2 });
    await migratePostgres(pg);
    [liteIndex, pgIndex] = await Promise.all([fill(lite), fill(pg)]);
  }, 60_000);

  afterAll(async () => {
    await lite?.close();
    await pg?.close();
  });

  it('finds the same chunks in the same order, at the same distances, as sqlite-vec', async () => {
    for (let probe = 0; probe < 20; probe += 1) {
      const query = Float32Array.from({ length: DIMENSIONS }, random);
      for (const guruId of [1, 2, 3]) {
        for (const limit of [1, 50, 2_000]) {
          const [actual, expected] = await Promise.all([pgIndex.nearest(guruId, query, limit), liteIndex.nearest(guruId, query, limit)]);
          expect(actual.map((hit) => hit.chunkId)).toEqual(expected.map((hit) => hit.chunkId));
          actual.forEach((hit, i) => expect(Math.abs(hit.distance - expected[i]!.distance)).toBeLessThan(1e-6));
          if (guruId === 3) expect(actual).toEqual([]);
          else expect(actual).toHaveLength(Math.min(limit, guruId === 1 ? CHUNKS - Math.floor(CHUNKS / 3) : Math.floor(CHUNKS / 3)));
        }
      }
    }
  });

  it('keeps the nearer of equal distances by chunk id, and puts a vector with no direction last', async () => {
    const same = vectors.get(1)!;
    await pgIndex.store(new Map([[4, same], [2, new Float32Array(DIMENSIONS)]]));
    const found = await pgIndex.nearest(1, same, CHUNKS);
    expect(found.slice(0, 2).map((hit) => hit.chunkId)).toEqual([1, 4]);
    expect(found[0]!.distance).toBeCloseTo(0, 6);
    expect(found.at(-1)).toEqual({ chunkId: 2, distance: 2 });
    await pgIndex.store(new Map([[4, vectors.get(4)!], [2, vectors.get(2)!]]));
  });

  it('keeps a vector of 1,024 dimensions in its row on PostgreSQL, and skips a vector of another length', async () => {
    const id = CHUNKS + 1;
    const long = Float32Array.from({ length: 1_024 }, random);
    await pg.run("INSERT INTO chunks (id, source_id, guru_id, position, title, headings, body) VALUES (?, 1, 1, ?, 't', '', 'b')", [id, id]);
    try {
      await pgIndex.store(new Map([[id, long]]));
      // Not in the TOAST table: a search reads it with its row (migration 5).
      expect(await pg.get("SELECT pg_relation_size(reltoastrelid) AS bytes FROM pg_class WHERE oid = 'chunk_vectors'::regclass")).toEqual({ bytes: 0 });
      expect(await pgIndex.nearest(1, long, 3)).toEqual([{ chunkId: id, distance: 0 }]);
      const query = vectors.get(5)!;
      expect(await pgIndex.nearest(1, query, 2_000)).toEqual(await liteIndex.nearest(1, query, 2_000));
    } finally {
      await pg.run('DELETE FROM chunks WHERE id = ?', [id]);
    }
  });
});
