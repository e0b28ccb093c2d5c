/**
 * Anchor text: the links a page makes to other pages of its site, kept at ingestion by the words
 * they are made with, and read back for the pages an answer weighs, without menus.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linksOf } from '../../../src/engine/ingest/links.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { parseQuery } from '../../../src/engine/search/query.js';
import { openDatabase } from '../../../src/engine/store/database.js';
import { MARK_CLOSE, MARK_OPEN, Retriever } from '../../../src/engine/search/retriever.js';
import { SqliteSql } from '../../../src/engine/store/sqlite-sql.js';
import { startLoopbackServer, type LoopbackServer } from '../../support/loopback-server.js';

describe('linksOf', () => {
  const page = 'https://docs.test/guide/setup.html';

  it('keeps links to other pages of the site by their words, without fragments, escapes or emphasis, each once', () => {
    const markdown = [
      'See [restore **factory** settings](https://docs.test/guide/reset.html#hard "Reset") and [factory reset](reset.html).',
      'Again: [Restore factory settings](https://docs.test/guide/reset.html), [the `frob\\_reset` command](<https://docs.test/a b.html>).',
    ].join('\n');
    expect(linksOf(markdown, page)).toEqual([
      { target: 'https://docs.test/guide/reset.html', text: 'restore factory settings' },
      { target: 'https://docs.test/guide/reset.html', text: 'factory reset' },
      { target: 'https://docs.test/a%20b.html', text: 'the frob_reset command' },
    ]);
  });

  it('leaves out links that say nothing of their target: to itself, to other sites, bare addresses, images, no letters', () => {
    const markdown = [
      '[this page](#top) [again](setup.html#more) [elsewhere](https://other.test/x.html) [mail](mailto:a@docs.test)',
      '[https://docs.test/x.html](https://docs.test/x.html) [reset.html](reset.html) [![logo](logo.png)](index.html)',
      '![diagram](diagram.png) [1.2](v1.html) [' + 'long '.repeat(50) + '](long.html)',
    ].join('\n');
    expect(linksOf(markdown, page)).toEqual([]);
  });
});

describe('anchor texts of an ingested site', () => {
  let dir: string;
  let site: LoopbackServer;
  let engine: LocalEngine;
  let resetPage = '';

  const html = (title: string, body: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body><nav><a href="/home">Home</a></nav><main><h1>${title}</h1>${body}<p>${'Frobnicator text. '.repeat(40)}</p></main></body></html>`;
  const route = (title: string, body: () => string) => (_request: unknown, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(title, body()));
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-links-'));
    resetPage = '<p>Run frob reset --hard.</p>';
    site = await startLoopbackServer({
      '/reset': route('frob reset', () => resetPage),
      '/setup': route('Setup', () => '<p>Made a mess? <a href="/reset#hard">Restore factory settings</a>. <a href="/home">Home</a></p>'),
      '/faq': route('FAQ', () => '<p>See <a href="/reset">factory reset</a> and <a href="/home">Home</a>.</p>'),
      '/home': route('Home', () => '<p>Welcome.</p>'),
    });
    engine = await LocalEngine.open({ dataDir: dir, allowPrivateNetwork: true });
    await engine.createGuru({ slug: 'frob' });
    await engine.createDataSources('frob', { website_urls: ['/reset', '/setup', '/faq', '/home'].map((path) => site.url(path)) });
    await engine.whenIdle();
  });

  afterEach(async () => {
    await engine.close();
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The anchor texts the answerer would read for `path`, matched words unmarked. */
  async function anchorTexts(question: string, path: string): Promise<string[]> {
    const db = openDatabase(dir);
    try {
      const guruId = (db.prepare('SELECT id FROM gurus').get() as { id: number }).id;
      const sourceId = (db.prepare('SELECT id FROM data_sources WHERE url = ?').get(site.url(path)) as { id: number }).id;
      const texts = (await new Retriever(new SqliteSql(db)).anchorTexts(guruId, parseQuery(question), [sourceId])).get(sourceId) ?? [];
      return texts.map((text) => text.replaceAll(MARK_OPEN, '[').replaceAll(MARK_CLOSE, ']')).sort();
    } finally {
      db.close();
    }
  }

  it('finds the words other pages link to a page with, those of the question marked', async () => {
    expect(await anchorTexts('How do I restore the factory settings?', '/reset')).toEqual(['[Restore] [factory] [settings]', '[factory] reset']);
    expect(await anchorTexts('backup', '/reset')).toEqual([]);
  });

  it('leaves out a link that many pages make with the same words: a menu', async () => {
    // "Home" links to /home from the menu of every page and from two paragraphs.
    expect(await anchorTexts('home', '/home')).toEqual([]);
  });

  it('keeps the links of a page as it now reads when it is indexed again', async () => {
    resetPage = '<p>Run frob reset --hard. See <a href="/faq">questions and answers</a>.</p>';
    const sources = (await engine.listDataSources('frob', { page: 1, page_size: 10 })).results;
    await engine.reindexDataSources('frob', { ids: sources.map((source) => source.id) });
    await engine.whenIdle();
    expect(await anchorTexts('questions', '/faq')).toEqual(['[questions] and answers']);
    expect(await anchorTexts('factory settings', '/reset')).toEqual(['Restore [factory] [settings]', '[factory] reset']);
  });
});
