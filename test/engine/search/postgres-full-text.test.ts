/**
 * The PostgreSQL full-text index against FTS5, side by side on the same text: the repository's
 * docs and README chunked as ingestion chunks them, in two gurus (the second holding copies of the
 * first's pages, so that scores tie), with labels, links and a few chunks of odd text. Every
 * answer of the engine's own Retriever on SQLite must come back the same from PostgreSQL: the same
 * ids in the same order, scores within 1e-9, the same marked text.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkMarkdown } from '../../../src/engine/ingest/chunker.js';
import { linksOf } from '../../../src/engine/ingest/links.js';
import { parseQuery, quoteTerm, type TextQuery } from '../../../src/engine/search/query.js';
import { phrasesOf, PostgresFullText } from '../../../src/engine/search/postgres/postgres-full-text.js';
import { FULL_TEXT_SCHEMA } from '../../../src/engine/search/postgres/schema.js';
import { Fts5Tokenizer } from '../../../src/engine/search/postgres/tokenizer.js';
import { Retriever } from '../../../src/engine/search/retriever.js';
import { withSynonyms } from '../../../src/engine/search/synonyms.js';
import { HEADING_SEPARATOR } from '../../../src/engine/store/chunks.js';
import { openMemoryDatabase, type Db } from '../../../src/engine/store/database.js';
import { PostgresSql } from '../../../src/engine/store/postgres-sql.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

/** Minimal copies of the store's tables and their indexes (store/postgres-migrations.ts makes the real ones). */
const STORE_TABLES = `
  CREATE TABLE data_sources (id bigint PRIMARY KEY, guru_id bigint NOT NULL, type text NOT NULL, url text, name text, title text,
    labels text NOT NULL DEFAULT '[]');
  CREATE UNIQUE INDEX data_sources_guru_url ON data_sources (guru_id, md5(url)) WHERE url IS NOT NULL;
  CREATE INDEX data_sources_guru_created ON data_sources (guru_id, id DESC);
  CREATE TABLE chunks (id bigint PRIMARY KEY, source_id bigint NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
    guru_id bigint NOT NULL, position integer NOT NULL, title text NOT NULL, headings text NOT NULL, body text NOT NULL);
  CREATE INDEX chunks_source ON chunks (source_id, position);
  CREATE TABLE links (id bigint PRIMARY KEY, guru_id bigint NOT NULL, source_id bigint NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
    target text NOT NULL, text text NOT NULL);
  CREATE INDEX links_target ON links (guru_id, md5(target), lower(text), source_id);
  CREATE INDEX links_source ON links (source_id);`;

interface Source {
  id: number;
  guruId: number;
  url: string;
  name: string;
  title: string;
  labels: string[];
  markdown: string;
}

const root = join(import.meta.dirname, '../../..');
const pages = [
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => ({ name, markdown: readFileSync(join(root, 'docs', name), 'utf8') })),
  { name: 'README.md', markdown: readFileSync(join(root, 'README.md'), 'utf8') },
];

/** Text FTS5 cuts, folds and stems in its own ways. */
const ODD = [
  'Crème brûlée — naïve café; Ça va? ÉCOLE Straße İstanbul ﬁne Ørsted Ångström ½ x² 日本語テキスト 😀 emoji',
  'He said "run" AND NOT (jump OR walk) NEAR(a b) col:value * ^start "" \'quoted\' — running runs ran runner',
  'e-mail foo_bar C++ C# .NET node.js v1.2.3 10,000 3.14 #hashtag @mention http://example.test/a?b=c',
  'Ελληνικά κείμενο, русский текст, עברית, العربية, हिन्दी, 한국어 텍스트, ไทย',
  '\uE000marked\uE001 text with private-use marks \u0001 and control characters',
];

const GURUS = [1, 2];
const LABELS = [['Guide'], ['reference', 'Ops'], [], ['ÉTÉ']];

function buildSources(): Source[] {
  const sources: Source[] = [];
  let id = 0;
  for (const guruId of GURUS) {
    for (const [index, page] of pages.entries()) {
      // The second guru holds the docs again (ties between its chunks and the first guru's).
      if (guruId === 2 && page.name === 'README.md') continue;
      id += 1;
      const title = /^#\s+(.+)$/m.exec(page.markdown)?.[1] ?? page.name;
      sources.push({ id, guruId, url: `https://guru.test/docs/${page.name}`, name: page.name, title, labels: LABELS[index % LABELS.length]!, markdown: page.markdown });
    }
    id += 1;
    sources.push({ id, guruId, url: `https://guru.test/odd-${guruId}`, name: 'odd', title: 'Odd “text”', labels: ['Odd'], markdown: ODD.join('\n\n') });
  }
  return sources;
}

let postgres: TestPostgres;
let pg: PostgresSql;
let db: Db;
let retriever: Retriever;
let fullText: PostgresFullText;
let chunkCount = 0;

beforeAll(async () => {
  postgres = await startPostgres();
  pg = PostgresSql.connect({ url: postgres.url, poolSize: 4 });
  await pg.exec(STORE_TABLES);
  await pg.exec(FULL_TEXT_SCHEMA);
  db = openMemoryDatabase();
  retriever = new Retriever(db);
  fullText = new PostgresFullText(pg);
  for (const guruId of GURUS) db.prepare(`INSERT INTO gurus (id, slug, name, date_created) VALUES (?, ?, ?, '2026-01-01')`).run(guruId, `g${guruId}`, `g${guruId}`);
  let chunkId = 0;
  let linkId = 0;
  for (const source of buildSources()) {
    const row = [source.id, source.guruId, 'WEBSITE', source.url, source.name, source.title, JSON.stringify(source.labels)];
    db.prepare(`INSERT INTO data_sources (id, guru_id, type, url, name, title, labels, date_created) VALUES (?, ?, ?, ?, ?, ?, ?, '2026-01-01')`).run(...row);
    await pg.run('INSERT INTO data_sources (id, guru_id, type, url, name, title, labels) VALUES (?, ?, ?, ?, ?, ?, ?)', row);
    await pg.transaction(async (tx) => {
      for (const chunk of chunkMarkdown(source.markdown, { title: source.title })) {
        chunkId += 1;
        const values = [chunkId, source.id, source.guruId, chunk.position, source.title, chunk.headings.join(HEADING_SEPARATOR), chunk.body];
        db.prepare('INSERT INTO chunks (id, source_id, guru_id, position, title, headings, body) VALUES (?, ?, ?, ?, ?, ?, ?)').run(...values);
        await tx.run('INSERT INTO chunks (id, source_id, guru_id, position, title, headings, body) VALUES (?, ?, ?, ?, ?, ?, ?)', values);
      }
      for (const link of linksOf(source.markdown, source.url)) {
        linkId += 1;
        const values = [linkId, source.guruId, source.id, link.target, link.text];
        db.prepare('INSERT INTO links (id, guru_id, source_id, target, text) VALUES (?, ?, ?, ?, ?)').run(...values);
        await tx.run('INSERT INTO links (id, guru_id, source_id, target, text) VALUES (?, ?, ?, ?, ?)', values);
      }
      await new PostgresFullText(tx).indexSource(source.id);
    });
  }
  chunkCount = chunkId;
}, 180_000);

afterAll(async () => {
  await pg?.close();
  await postgres?.stop();
  db?.close();
});

const QUESTIONS = [
  'search',
  'configuration',
  'the',
  'how do I install it',
  'PostgreSQL Redis several processes',
  'rate limit per key',
  'MCP tools resources prompts',
  'remove a source and reindex',
  'ångström café naïve',
  'ecole ete',
  'straße strasse',
  'running',
  'run AND NOT jump',
  '"quoted" text (with) operators: col:value NEAR',
  'C++ .NET node.js',
  'ελληνικά русский 한국어',
  '日本語テキスト',
  'x² ½',
  'istanbul',
  'marked private use',
  'guru answers with sources and trust score',
  'embedding vectors semantic',
  'zzzznotaword',
  'what is it',
  'copy backup clone',
  'permission permissions privileges',
];

const queries: [string, TextQuery][] = QUESTIONS.flatMap((question) => {
  const parsed = parseQuery(question);
  const expanded = withSynonyms(parsed);
  return expanded.match === parsed.match ? [[question, parsed]] : [[question, parsed], [`${question} (synonyms)`, expanded]];
});

function expectSameRanking<T extends { score: number }>(actual: T[], expected: T[], id: (hit: T) => number): void {
  expect(actual.map(id)).toEqual(expected.map(id));
  actual.forEach((hit, index) => expect(Math.abs(hit.score - expected[index]!.score)).toBeLessThan(1e-9));
  expect(actual.map(({ score: _, ...rest }) => rest)).toEqual(expected.map(({ score: _, ...rest }) => rest));
}

describe('the PostgreSQL full-text index', () => {
  it('holds a few hundred chunks and the same statistics as FTS5', async () => {
    expect(chunkCount).toBeGreaterThan(200);
    const stats = await pg.get<{ chunks: number; tokens: number }>('SELECT sum(chunks) AS chunks, sum(tokens) AS tokens FROM full_text_stats');
    db.exec('CREATE VIRTUAL TABLE temp.chunks_tokens USING fts5vocab(main, chunks_fts, instance)');
    const tokens = db.prepare('SELECT count(*) FROM temp.chunks_tokens').pluck().get();
    expect(stats).toEqual({ chunks: chunkCount, tokens });
  });

  it.each(queries)('ranks chunks as FTS5 does: %s', async (_, query) => {
    for (const guruId of GURUS) {
      for (const limit of [1, 5, 20, 200]) {
        expectSameRanking(await fullText.search(guruId, query, { limit }), retriever.search(guruId, query, { limit }), (hit) => hit.chunkId);
      }
      for (const labels of [['guide'], ['OPS', 'odd'], ['été'], ['nothing']]) {
        expectSameRanking(await fullText.search(guruId, query, { limit: 20, labels }), retriever.search(guruId, query, { limit: 20, labels }), (hit) => hit.chunkId);
      }
    }
  });

  it.each(queries)('ranks sources as FTS5 does: %s', async (_, query) => {
    for (const guruId of GURUS) {
      for (const limit of [1, 3, 10, 100]) {
        expectSameRanking(await fullText.searchSources(guruId, query, { limit }), retriever.searchSources(guruId, query, { limit }), (hit) => hit.sourceId);
        const labels = ['Reference', 'GUIDE'];
        expectSameRanking(
          await fullText.searchSources(guruId, query, { limit, labels }),
          retriever.searchSources(guruId, query, { limit, labels }),
          (hit) => hit.sourceId,
        );
      }
    }
  });

  it.each(queries)('ranks the whole index as FTS5 does: %s', async (_, query) => {
    if (query.match === undefined) return;
    const expected = db
      .prepare<[string], { chunkId: number; guruId: number; sourceId: number; score: number }>(
        `WITH best AS MATERIALIZED (SELECT rowid AS id, -bm25(chunks_fts, 2.0, 1.5, 1.0) AS score FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY score DESC LIMIT 40)
         SELECT best.id AS chunkId, c.guru_id AS guruId, c.source_id AS sourceId, best.score AS score FROM best JOIN chunks c ON c.id = best.id ORDER BY best.score DESC`,
      )
      .all(query.match);
    expectSameRanking(await fullText.topChunks(query, 40), expected, (hit) => hit.chunkId);
  });

  it('counts documents per guru as FTS5 does, several words at once', async () => {
    const words = [...new Set(queries.flatMap(([, query]) => query.terms)), 'running', 'runs', 'ecole', 'école', 'nothingatall'];
    for (const guruId of GURUS) {
      expect(await fullText.documentFrequencies(guruId, words)).toEqual(words.map((word) => retriever.documentFrequency(guruId, word)));
    }
  });

  it.each(queries)('marks the words FTS5 highlight() marks: %s', async (_, query) => {
    const ids = Array.from({ length: chunkCount }, (__, index) => index + 1);
    const sorted = <V>(map: Map<number, V>) => [...map].sort((a, b) => a[0] - b[0]);
    expect(sorted(await fullText.markedChunks(query, ids))).toEqual(sorted(retriever.markedChunks(query, ids)));
    expect(sorted(await fullText.highlighted(query, ids))).toEqual(sorted(retriever.highlighted(query, ids)));
  });

  it.each(queries)('gives the anchor texts FTS5 gives, navigation left out: %s', async (_, query) => {
    for (const guruId of GURUS) {
      const sourceIds = db.prepare<[number], number>('SELECT id FROM data_sources WHERE guru_id = ?').pluck().all(guruId);
      expect([...(await fullText.anchorTexts(guruId, query, sourceIds))].sort((a, b) => a[0] - b[0])).toEqual(
        [...retriever.anchorTexts(guruId, query, sourceIds)].sort((a, b) => a[0] - b[0]),
      );
    }
  });
});

describe('FTS5 tokens', () => {
  it('gives each token of each column with where it lies, for any text', () => {
    const tokenizer = new Fts5Tokenizer();
    try {
      const [row, empty] = tokenizer.tokenize([[ODD[0]!, ODD[1]!, ODD.slice(2).join(' ')], ['', '—', '']]);
      expect(empty).toEqual([[], [], []]);
      expect(row![0]!.slice(0, 4)).toEqual([
        { term: 'creme', start: 0, end: 5 },
        { term: 'brule', start: 6, end: 12 },
        { term: 'naiv', start: 15, end: 20 },
        { term: 'cafe', start: 21, end: 25 },
      ]);
      // Each token's text, tokenized alone, is that one term: the spans cut the text where FTS5 does.
      const columns = [ODD[0]!, ODD[1]!, ODD.slice(2).join(' ')];
      row!.forEach((tokens, column) => {
        expect(tokens.length).toBeGreaterThan(5);
        for (const token of tokens) expect(tokenizer.terms(columns[column]!.slice(token.start, token.end))).toEqual([token.term]);
      });
      expect(tokenizer.terms('Running')).toEqual(['run']);
      expect(tokenizer.terms('😀')).toEqual([]);
    } finally {
      tokenizer.close();
    }
  });
});

describe('reading the query', () => {
  it('reads OR-ed quoted words, quotes doubled inside, and refuses anything else', () => {
    expect(phrasesOf(`${quoteTerm('a"b')} OR ${quoteTerm('c')} OR ${quoteTerm('c')}`)).toEqual(['a"b', 'c', 'c']);
    expect(() => phrasesOf('a OR b')).toThrow(/quoted words/);
    expect(() => phrasesOf('"a" AND "b"')).toThrow(/quoted words/);
    expect(() => phrasesOf('"a')).toThrow(/unterminated/);
  });
});

describe('indexing on PostgreSQL', () => {
  let store: PostgresSql;
  const stats = () => store.get<{ chunks: number; tokens: number }>('SELECT sum(chunks) AS chunks, sum(tokens) AS tokens FROM full_text_stats');
  const postingsOf = async (sourceId: number) =>
    (await store.get<{ n: number }>('SELECT count(*) AS n FROM chunk_terms WHERE source_id = ?', [sourceId]))?.n ?? 0;
  const linkPostings = async () => (await store.get<{ n: number }>('SELECT count(*) AS n FROM link_terms'))?.n ?? 0;
  const search = (text: string) => new PostgresFullText(store).search(1, parseQuery(text), { limit: 10 });
  let nextChunk = 0;

  /** Replaces a source's chunks and links, and indexes them, in one transaction as ingestion does. */
  const store1 = (on: PostgresSql | Parameters<Parameters<PostgresSql['transaction']>[0]>[0], sourceId: number, bodies: string[], links: string[] = []) =>
    on.transaction(async (tx) => {
      await tx.run('DELETE FROM chunks WHERE source_id = ?', [sourceId]);
      await tx.run('DELETE FROM links WHERE source_id = ?', [sourceId]);
      for (const [position, body] of bodies.entries()) {
        nextChunk += 1;
        await tx.run('INSERT INTO chunks (id, source_id, guru_id, position, title, headings, body) VALUES (?, ?, 1, ?, ?, ?, ?)', [
          nextChunk, sourceId, position, `Source ${sourceId}`, 'Part', body,
        ]);
      }
      for (const text of links) {
        nextChunk += 1;
        await tx.run('INSERT INTO links (id, guru_id, source_id, target, text) VALUES (?, 1, ?, ?, ?)', [nextChunk, sourceId, 'https://x.test/b', text]);
      }
      await new PostgresFullText(tx).indexSource(sourceId);
    });

  beforeAll(async () => {
    // A schema of its own, so that these rows do not count in the index compared with FTS5 above.
    await pg.exec('CREATE SCHEMA indexing');
    store = PostgresSql.connect({ url: `${postgres.url}?options=${encodeURIComponent('-c search_path=indexing')}`, poolSize: 4 });
    await store.exec(STORE_TABLES);
    await store.exec(FULL_TEXT_SCHEMA);
    for (const id of [1, 2, 3]) await store.run("INSERT INTO data_sources (id, guru_id, type, url, labels) VALUES (?, 1, 'WEBSITE', ?, '[]')", [id, `https://x.test/${id}`]);
  });
  afterAll(() => store?.close());

  it('keeps the statistics and postings with the chunks: replaced, removed, deleted', async () => {
    await store1(store, 1, ['alpha beta gamma', 'alpha delta'], ['Alpha page']);
    await store1(store, 2, ['beta epsilon']);
    // Title "Source n" and headings "Part" are 3 tokens a chunk.
    expect(await stats()).toEqual({ chunks: 3, tokens: 3 * 3 + 3 + 2 + 2 });
    expect((await search('alpha')).map((hit) => hit.sourceId)).toEqual([1, 1]);
    await new PostgresFullText(store).indexSource(1); // nothing new to index
    expect(await stats()).toEqual({ chunks: 3, tokens: 16 });

    await store1(store, 1, ['zeta']);
    expect(await stats()).toEqual({ chunks: 2, tokens: 4 + 5 });
    expect(await search('alpha')).toEqual([]);
    expect((await search('zeta')).map((hit) => hit.sourceId)).toEqual([1]);

    await store.transaction((tx) => new PostgresFullText(tx).removeSource(2));
    expect(await stats()).toEqual({ chunks: 1, tokens: 4 });
    expect(await postingsOf(2)).toBe(0);
    expect(await search('epsilon')).toEqual([]);

    await store.run('DELETE FROM data_sources WHERE id = 1');
    expect(await stats()).toEqual({ chunks: 0, tokens: 0 });
    expect(await postingsOf(1)).toBe(0);
    expect(await linkPostings()).toBe(0);
  });

  it('indexes every source not indexed yet at once, as after a copy', async () => {
    await store.run('DELETE FROM chunks WHERE source_id = 2'); // left unindexed by removeSource above
    await store.run("INSERT INTO data_sources (id, guru_id, type, url, labels) VALUES (9, 1, 'WEBSITE', 'https://x.test/9', '[]')");
    await store.run("INSERT INTO chunks (id, source_id, guru_id, position, title, headings, body) VALUES (900, 9, 1, 0, 'Copied', '', 'copied words')");
    await store.run("INSERT INTO links (id, guru_id, source_id, target, text) VALUES (900, 1, 9, 'https://x.test/9', 'copied link')");
    const before = await stats();
    expect(await search('copied')).toEqual([]);
    await store.transaction((tx) => new PostgresFullText(tx).indexAll());
    expect((await search('copied')).map((hit) => hit.chunkId)).toEqual([900]);
    expect(await stats()).toEqual({ chunks: (before?.chunks ?? 0) + 1, tokens: (before?.tokens ?? 0) + 3 });
    expect(await linkPostings()).toBeGreaterThan(0);
    await store.run('DELETE FROM data_sources WHERE id = 9');
    expect(await stats()).toEqual(before);
  });

  it('lets two transactions index at once, neither waiting for the other', async () => {
    await store1(store, 2, ['old text of two']);
    await store1(store, 3, ['old text of three']);
    const before = await stats();
    // Each transaction deletes and writes chunks (statistics down and up); the second runs while
    // the first is open and must not wait for its locks (it would fail on the lock timeout).
    await store.transaction(async (first) => {
      await store1(first, 2, ['new words of two', 'more words of two']);
      await store.transaction(async (second) => {
        await second.exec("SET LOCAL lock_timeout = '20s'");
        await store1(second, 3, ['new words of three']);
      });
    });
    const after = await stats();
    expect(after?.chunks).toBe((before?.chunks ?? 0) + 1);
    expect((await search('words')).map((hit) => hit.sourceId).sort()).toEqual([2, 2, 3]);
    const shards = await store.get<{ n: number }>('SELECT count(*) AS n FROM full_text_stats');
    expect(shards?.n).toBe(2);
  });
});
