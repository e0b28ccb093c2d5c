/**
 * Hybrid search with an OpenAI-compatible embeddings endpoint: vectors are
 * made in the background, search finds texts by meaning, and whenever the
 * provider is away search stays lexical and says so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../src/engine/local-engine.js';
import { startEmbeddingsStandIn, type EmbeddingsStandIn } from '../stand-ins/embeddings.js';

const TEXTS = [
  { name: 'Workshop', content: 'Our workshop does automobile servicing on weekdays.' },
  { name: 'Bakery', content: 'The bakery sells sourdough loaf every morning.' },
  { name: 'Billing', content: 'Invoices are sent on the first of the month.' },
];

describe('hybrid search with embeddings', () => {
  let dir: string;
  let provider: EmbeddingsStandIn;
  let engine: LocalEngine;

  const open = (model = 'concepts-v1') =>
    LocalEngine.open({ dataDir: dir, embeddings: { baseUrl: provider.baseUrl, model } });

  const vectorCount = () => {
    const db = new Database(join(dir, 'guru.sqlite'), { readonly: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM chunk_vectors').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-embeddings-'));
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
    expect(vectorCount()).toBe(3);
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
    expect(vectorCount()).toBe(3);
    provider.down = false;
    await engine.whenIdle();
    expect(vectorCount()).toBe(4);
  });

  it('makes all vectors anew when the model changes', async () => {
    await engine.close();
    engine = await open('concepts-v2');
    await expect.poll(() => provider.embedded.get('concepts-v2')?.length ?? 0).toBeGreaterThanOrEqual(4); // probe + 3 chunks
    await engine.whenIdle();
    expect(vectorCount()).toBe(3);
    const db = new Database(join(dir, 'guru.sqlite'), { readonly: true });
    expect(db.prepare('SELECT model FROM embedding_model').get()).toEqual({ model: 'concepts-v2' });
    db.close();
  });

  it('searches lexically without embeddings configured', async () => {
    await engine.close();
    engine = await LocalEngine.open({ dataDir: dir });
    expect(await engine.semanticSearch('shop', { question: 'sourdough' })).toMatchObject({ search_mode: 'lexical', total_sources: 1 });
  });
});
