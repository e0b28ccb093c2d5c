/**
 * The PostgreSQL full-text index against FTS5, side by side on the same text: the repository's
 * docs and README chunked as ingestion chunks them, in two gurus (the second holding copies of the
 * first's pages, so that scores tie), with labels, links and a few chunks of odd text, in a SQLite
 * store and a PostgreSQL store of the real schemas (both stores' migrations). Both implementations
 * of the FullText interface, and the engine's Retriever on each store, must answer alike: the same
 * ids in the same order, scores within 1e-9, the same marked text.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pgDriver from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkMarkdown } from '../../../src/engine/ingest/chunker.js';
import { linksOf } from '../../../src/engine/ingest/links.js';
import { Fts5FullText } from '../../../src/engine/search/fts5.js';
import type { FullText } from '../../../src/engine/search/full-text.js';
import { parseQuery, quoteTerm, type TextQuery } from '../../../src/engine/search/query.js';
import { chunkHitsStatement, phrasesOf, PostgresFullText, queryTerms, sourceHitsStatement } from '../../../src/engine/search/postgres/postgres-full-text.js';
import { Fts5Tokenizer } from '../../../src/engine/search/postgres/tokenizer.js';
import { Retriever } from '../../../src/engine/search/retriever.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { withSynonyms } from '../../../src/engine/search/synonyms.js';
import { HEADING_SEPARATOR } from '../../../src/engine/store/chunks.js';
import { openMemoryDatabase, type Db } from '../../../src/engine/store/database.js';
import { migratePostgres } from '../../../src/engine/store/postgres-migrations.js';
import { numberPlaceholders, PostgresSql } from '../../../src/engine/store/postgres-sql.js';
import type { Sql, Store } from '../../../src/engine/store/sql.js';
import { SqliteSql } from '../../../src/engine/store/sqlite-sql.js';
import { freshDatabase } from '../../support/postgres-databases.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

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
const CREATED = '2026-01-01T00:00:00.000Z';

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

/** The rows both stores get, column by column. */
interface Rows {
  sources: { id: number[]; guru: number[]; url: string[]; name: string[]; title: string[]; labels: string[] };
  chunks: { id: number[]; source: number[]; guru: number[]; position: number[]; title: string[]; headings: string[]; body: string[] };
  links: { id: number[]; guru: number[]; source: number[]; target: string[]; text: string[] };
}

function buildRows(): Rows {
  const rows: Rows = {
    sources: { id: [], guru: [], url: [], name: [], title: [], labels: [] },
    chunks: { id: [], source: [], guru: [], position: [], title: [], headings: [], body: [] },
    links: { id: [], guru: [], source: [], target: [], text: [] },
  };
  for (const source of buildSources()) {
    rows.sources.id.push(source.id);
    rows.sources.guru.push(source.guruId);
    rows.sources.url.push(source.url);
    rows.sources.name.push(source.name);
    rows.sources.title.push(source.title);
    rows.sources.labels.push(JSON.stringify(source.labels));
    for (const chunk of chunkMarkdown(source.markdown, { title: source.title })) {
      rows.chunks.id.push(rows.chunks.id.length + 1);
      rows.chunks.source.push(source.id);
      rows.chunks.guru.push(source.guruId);
      rows.chunks.position.push(chunk.position);
      rows.chunks.title.push(source.title);
      rows.chunks.headings.push(chunk.headings.join(HEADING_SEPARATOR));
      rows.chunks.body.push(chunk.body);
    }
    for (const link of linksOf(source.markdown, source.url)) {
      rows.links.id.push(rows.links.id.length + 1);
      rows.links.guru.push(source.guruId);
      rows.links.source.push(source.id);
      rows.links.target.push(link.target);
      rows.links.text.push(link.text);
    }
  }
  return rows;
}

/** One store with its full-text search and the engine's retriever on it. */
interface Side {
  readonly sql: Store;
  readonly fullText: FullText;
  readonly retriever: Retriever;
}

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Heap Fetches'?: number;
  readonly Plans?: readonly PlanNode[];
}

/** A plan's nodes, depth first. */
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/**
 * How the two ranking statements read chunk_terms for a query: per statement, each scan's node
 * type and heap fetches, flattened. Scans of the whole table or bitmap scans are forbidden, as a
 * table this small is cheaper to read whole: the plan shows whether the index suffices.
 */
async function postingScans(url: string, guruId: number, question: string): Promise<unknown[][]> {
  const client = new pgDriver.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET enable_seqscan = off; SET enable_bitmapscan = off');
    const scans: unknown[][] = [];
    for (const statement of [chunkHitsStatement, sourceHitsStatement]) {
      const { text, names } = numberPlaceholders(statement);
      const values = names!.map((name) => ({ terms: queryTerms(parseQuery(question)), guruId, limit: 10 })[name]);
      const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
      const plan = (rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan;
      scans.push(nodesOf(plan).filter((node) => node['Relation Name'] === 'chunk_terms').flatMap((node) => [node['Node Type'], node['Heap Fetches']]));
    }
    return scans;
  } finally {
    await client.end();
  }
}

const sideOf = (sql: Store, fullText: FullText): Side => ({ sql, fullText, retriever: new Retriever(sql) });

let postgres: TestPostgres;
let db: Db;
let lite: Side;
let pg: Side;
let chunkCount = 0;
let sourcesOfGuru: Map<number, number[]>;

function loadSqlite(rows: Rows): void {
  const insert = db.transaction(() => {
    for (const guruId of GURUS) db.prepare('INSERT INTO gurus (id, slug, name, date_created) VALUES (?, ?, ?, ?)').run(guruId, `g${guruId}`, `g${guruId}`, CREATED);
    const { sources, chunks, links } = rows;
    const source = db.prepare(`INSERT INTO data_sources (id, guru_id, type, url, name, title, labels, date_created) VALUES (?, ?, 'WEBSITE', ?, ?, ?, ?, ?)`);
    sources.id.forEach((id, i) => source.run(id, sources.guru[i], sources.url[i], sources.name[i], sources.title[i], sources.labels[i], CREATED));
    const chunk = db.prepare('INSERT INTO chunks (id, source_id, guru_id, position, title, headings, body) VALUES (?, ?, ?, ?, ?, ?, ?)');
    chunks.id.forEach((id, i) => chunk.run(id, chunks.source[i], chunks.guru[i], chunks.position[i], chunks.title[i], chunks.headings[i], chunks.body[i]));
    const link = db.prepare('INSERT INTO links (id, guru_id, source_id, target, text) VALUES (?, ?, ?, ?, ?)');
    links.id.forEach((id, i) => link.run(id, links.guru[i], links.source[i], links.target[i], links.text[i]));
  });
  insert();
}

async function loadPostgres(sql: Sql, rows: Rows): Promise<void> {
  await sql.transaction(async (tx) => {
    for (const guruId of GURUS) await tx.run('INSERT INTO gurus (id, slug, name, date_created) VALUES (?, ?, ?, ?)', [guruId, `g${guruId}`, `g${guruId}`, CREATED]);
    await tx.run(
      `INSERT INTO data_sources (id, guru_id, type, url, name, title, labels, date_created)
       SELECT id, guru, 'WEBSITE', url, name, title, labels, @created
       FROM unnest(@id::bigint[], @guru::bigint[], @url::text[], @name::text[], @title::text[], @labels::text[]) AS s(id, guru, url, name, title, labels)`,
      { ...rows.sources, created: CREATED },
    );
    await tx.run(
      `INSERT INTO chunks (id, source_id, guru_id, position, title, headings, body)
       SELECT * FROM unnest(@id::bigint[], @source::bigint[], @guru::bigint[], @position::bigint[], @title::text[], @headings::text[], @body::text[])`,
      rows.chunks,
    );
    await tx.run(
      `INSERT INTO links (id, guru_id, source_id, target, text)
       SELECT * FROM unnest(@id::bigint[], @guru::bigint[], @source::bigint[], @target::text[], @text::text[])`,
      rows.links,
    );
  });
}

beforeAll(async () => {
  const rows = buildRows();
  chunkCount = rows.chunks.id.length;
  sourcesOfGuru = new Map(GURUS.map((guruId) => [guruId, rows.sources.id.filter((_, i) => rows.sources.guru[i] === guruId)]));
  postgres = await startPostgres();
  const pgSql = PostgresSql.connect({ url: postgres.url, poolSize: 4 });
  await migratePostgres(pgSql);
  pg = sideOf(pgSql, new PostgresFullText(pgSql));
  db = openMemoryDatabase();
  const liteSql = new SqliteSql(db);
  lite = sideOf(liteSql, new Fts5FullText(liteSql));
  loadSqlite(rows);
  await loadPostgres(pgSql, rows);
  // Indexed through the interface, a few sources a transaction as ingestion commits them (FTS5's triggers did it already).
  for (const side of [lite, pg]) {
    for (let at = 0; at < rows.sources.id.length; at += 4) {
      const batch = rows.sources.id.slice(at, at + 4);
      await side.sql.transaction((tx) => (side === pg ? new PostgresFullText(tx) : new Fts5FullText(tx)).indexSources(batch));
    }
  }
}, 180_000);

afterAll(async () => {
  await pg?.sql.close();
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

/** Queries with at least one word (the FullText interface is never asked with none). */
const wordy = queries.filter(([, query]) => query.match !== undefined);

function expectSameRanking<T extends { score: number }>(actual: readonly T[], expected: readonly T[], id: (hit: T) => number): void {
  expect(actual.map(id)).toEqual(expected.map(id));
  actual.forEach((hit, index) => expect(Math.abs(hit.score - expected[index]!.score)).toBeLessThan(1e-9));
  expect(actual.map(({ score: _, ...rest }) => rest)).toEqual(expected.map(({ score: _, ...rest }) => rest));
}

/** Both sides' answers to one question, asked at once. */
const both = <T>(ask: (side: Side) => Promise<T>): Promise<[T, T]> => Promise.all([ask(pg), ask(lite)]);

const sorted = <V>(map: Map<number, V>) => [...map].sort((a, b) => a[0] - b[0]);

describe('the PostgreSQL full-text index', () => {
  it('holds a few hundred chunks and the same statistics as FTS5', async () => {
    expect(chunkCount).toBeGreaterThan(200);
    const stats = await pg.sql.get<{ chunks: number; tokens: number }>('SELECT sum(chunks) AS chunks, sum(tokens) AS tokens FROM full_text_stats');
    db.exec('CREATE VIRTUAL TABLE temp.chunks_tokens USING fts5vocab(main, chunks_fts, instance)');
    const tokens = db.prepare('SELECT count(*) FROM temp.chunks_tokens').pluck().get();
    expect(stats).toEqual({ chunks: chunkCount, tokens });
  });

  it.each(wordy)('ranks chunks as FTS5 does: %s', async (_, query) => {
    for (const guruId of GURUS) {
      for (const limit of [1, 5, 20, 200]) {
        const [actual, expected] = await both((side) => side.fullText.chunkHits(guruId, query, limit, []));
        expectSameRanking(actual, expected, (hit) => hit.chunkId);
      }
      for (const labels of [['guide'], ['ops', 'odd'], ['été'], ['nothing']]) {
        const [actual, expected] = await both((side) => side.fullText.chunkHits(guruId, query, 20, labels));
        expectSameRanking(actual, expected, (hit) => hit.chunkId);
      }
      for (const labels of [[], ['GUIDE', 'Odd'], ['ÉTÉ']]) {
        const [actual, expected] = await both((side) => side.retriever.search(guruId, query, { limit: 20, labels }));
        expectSameRanking(actual, expected, (hit) => hit.chunkId);
      }
    }
  });

  it.each(wordy)('ranks sources as FTS5 does: %s', async (_, query) => {
    for (const guruId of GURUS) {
      for (const limit of [1, 3, 10, 100]) {
        for (const labels of [[], ['reference', 'guide']]) {
          const [actual, expected] = await both((side) => side.fullText.sourceHits(guruId, query, limit, labels));
          expectSameRanking(actual, expected, (hit) => hit.sourceId);
        }
        // The retriever's own path (FTS5: the index's best chunks first, the guru's every match when they cannot tell).
        for (const labels of [[], ['Reference', 'GUIDE']]) {
          const [actual, expected] = await both((side) => side.retriever.searchSources(guruId, query, { limit, labels }));
          expectSameRanking(actual, expected, (hit) => hit.sourceId);
        }
      }
    }
  });

  it('reads the postings of a search from the index alone (no heap fetch once vacuumed)', async () => {
    // Vacuumed until the pages are marked visible to all: the test server commits asynchronously,
    // and a page is marked only once the commits of its rows are flushed.
    const vacuumedScans = async () => {
      await pg.sql.exec('VACUUM chunk_terms');
      return postingScans(postgres.url, 1, 'search configuration index');
    };
    // Two reads of the terms' postings: their df over the whole index, then the guru's to score.
    await expect.poll(vacuumedScans, { timeout: 30_000, interval: 200 }).toEqual([
      ['Index Only Scan', 0, 'Index Only Scan', 0],
      ['Index Only Scan', 0, 'Index Only Scan', 0],
    ]);
  });

  it('settles the postings once the engine has indexed a burst of sources: a search then reads them from the index alone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'guru-pg-settle-'));
    const databaseUrl = await freshDatabase(postgres);
    const engine = await LocalEngine.open({ dataDir, databaseUrl });
    try {
      await engine.createGuru({ slug: 'tapirs', name: 'Tapirs' });
      await engine.createDataSources('tapirs', {
        text_sources: Array.from({ length: 40 }, (_, index) => ({ name: `note ${index}`, content: `Tapir note ${index}: the tapir wades across river ${index}.` })),
      });
      await engine.whenIdle();
      // The engine's guru is the first of its database (id 1).
      await expect
        .poll(() => postingScans(databaseUrl, 1, 'tapir river'), { timeout: 30_000, interval: 200 })
        .toEqual([
          ['Index Only Scan', 0, 'Index Only Scan', 0],
          ['Index Only Scan', 0, 'Index Only Scan', 0],
        ]);
    } finally {
      await engine.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('counts documents per guru as FTS5 does, several words at once', async () => {
    const words = [...new Set([...queries.flatMap(([, query]) => query.terms), 'running', 'runs', 'ecole', 'école', 'nothingatall'])];
    for (const guruId of GURUS) {
      const [actual, expected] = await both((side) => side.retriever.documentFrequencies(guruId, words));
      expect([...actual]).toEqual([...expected]);
      expect([...actual.keys()]).toEqual(words);
      expect([...actual.values()].some((n) => n > 0)).toBe(true);
    }
  });

  it.each(wordy)('marks the words FTS5 highlight() marks: %s', async (_, query) => {
    const ids = Array.from({ length: chunkCount }, (__, index) => index + 1);
    const [marked, expectedMarked] = await both((side) => side.fullText.markedChunks(query, ids));
    expect(sorted(marked)).toEqual(sorted(expectedMarked));
    const [bodies, expectedBodies] = await both((side) => side.fullText.highlightedBodies(query, ids));
    expect(sorted(bodies)).toEqual(sorted(expectedBodies));
    // Through the retriever, a search's top chunks as the engine asks for them.
    const top = (await lite.retriever.search(1, query, { limit: 10 })).map((hit) => hit.chunkId);
    const [viaRetriever, expectedViaRetriever] = await both((side) => side.retriever.markedChunks(query, top));
    expect(sorted(viaRetriever)).toEqual(sorted(expectedViaRetriever));
    const [highlighted, expectedHighlighted] = await both((side) => side.retriever.highlighted(query, top));
    expect(sorted(highlighted)).toEqual(sorted(expectedHighlighted));
  });

  it.each(wordy)('gives the anchor texts FTS5 gives, navigation left out: %s', async (_, query) => {
    const inOrder = (texts: { sourceId: number; marked: string }[]) =>
      [...texts].sort((a, b) => a.sourceId - b.sourceId || (a.marked < b.marked ? -1 : a.marked > b.marked ? 1 : 0));
    for (const guruId of GURUS) {
      const sourceIds = sourcesOfGuru.get(guruId)!;
      for (const navigation of [1, 2.5, 1000]) {
        const [actual, expected] = await both((side) => side.fullText.anchorTexts(guruId, query, sourceIds, navigation));
        expect(inOrder(actual)).toEqual(inOrder(expected));
      }
      const [actual, expected] = await both((side) => side.retriever.anchorTexts(guruId, query, sourceIds));
      expect(sorted(actual)).toEqual(sorted(expected));
    }
  });

  it('answers a query of no word with nothing, on both stores', async () => {
    const query = parseQuery('— !! ...');
    expect(query.match).toBeUndefined();
    for (const side of [lite, pg]) {
      expect(await side.retriever.search(1, query, { limit: 10 })).toEqual([]);
      expect(await side.retriever.searchSources(1, query, { limit: 10 })).toEqual([]);
      expect(await side.retriever.markedChunks(query, [1, 2])).toEqual(new Map());
      expect(await side.retriever.anchorTexts(1, query, [1, 2])).toEqual(new Map());
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
  const search = (text: string) => new PostgresFullText(store).chunkHits(1, parseQuery(text), 10, []);
  let nextChunk = 0;

  /** Replaces a source's chunks and links, and indexes them, in one transaction as ingestion does. */
  const store1 = (on: Sql, sourceId: number, bodies: string[], links: string[] = []) =>
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
      await new PostgresFullText(tx).indexSources([sourceId]);
    });

  const addSource = (id: number) =>
    store.run("INSERT INTO data_sources (id, guru_id, type, url, labels, date_created) VALUES (?, 1, 'WEBSITE', ?, '[]', ?)", [id, `https://x.test/${id}`, CREATED]);

  beforeAll(async () => {
    // A database of its own, so that these rows do not count in the index compared with FTS5 above.
    store = PostgresSql.connect({ url: await freshDatabase(postgres), poolSize: 4 });
    await migratePostgres(store);
    await store.run("INSERT INTO gurus (id, slug, name, date_created) VALUES (1, 'g', 'g', ?)", [CREATED]);
    for (const id of [1, 2, 3]) await addSource(id);
  });
  afterAll(() => store?.close());

  it('keeps the statistics and postings with the chunks: replaced, removed, deleted', async () => {
    await store1(store, 1, ['alpha beta gamma', 'alpha delta'], ['Alpha page']);
    await store1(store, 2, ['beta epsilon']);
    // Title "Source n" and headings "Part" are 3 tokens a chunk.
    expect(await stats()).toEqual({ chunks: 3, tokens: 3 * 3 + 3 + 2 + 2 });
    expect((await search('alpha')).map((hit) => hit.sourceId)).toEqual([1, 1]);
    await new PostgresFullText(store).indexSources([1]); // nothing new to index
    expect(await stats()).toEqual({ chunks: 3, tokens: 16 });

    await store1(store, 1, ['zeta']);
    expect(await stats()).toEqual({ chunks: 2, tokens: 4 + 5 });
    expect(await search('alpha')).toEqual([]);
    expect((await search('zeta')).map((hit) => hit.sourceId)).toEqual([1]);

    // A source's chunks going (replaced or deleted) take their postings with them.
    await store.run('DELETE FROM chunks WHERE source_id = 2');
    expect(await stats()).toEqual({ chunks: 1, tokens: 4 });
    expect(await postingsOf(2)).toBe(0);
    expect(await search('epsilon')).toEqual([]);

    await store.run('DELETE FROM data_sources WHERE id = 1');
    expect(await stats()).toEqual({ chunks: 0, tokens: 0 });
    expect(await postingsOf(1)).toBe(0);
    expect(await linkPostings()).toBe(0);
  });

  it('indexes every source not indexed yet at once, as after a copy', async () => {
    await addSource(9);
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

describe("the PostgreSQL store's connections", () => {
  it('plan each prepared statement once (force_generic_plan: search measured faster)', async () => {
    expect(await pg.sql.get('SHOW plan_cache_mode')).toEqual({ plan_cache_mode: 'force_generic_plan' });
    expect(await pg.sql.transaction((tx) => tx.get('SHOW plan_cache_mode'))).toEqual({ plan_cache_mode: 'force_generic_plan' });
  });
});
