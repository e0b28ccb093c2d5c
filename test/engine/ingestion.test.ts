/**
 * URL sources and uploads through the engine, against real loopback servers:
 * fetched, extracted, indexed, retried, refused and reindexed, on each store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../src/engine/local-engine.js';
import { startJiraStandIn } from '../stand-ins/jira.js';
import { startYouTubeStandIn } from '../stand-ins/youtube.js';
import { onEachStore, type EngineDatabase } from '../support/engine-stores.js';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

const page = (title: string, body: string) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body>
   <nav><a href="/">Home</a> <a href="/pricing">Pricing</a> <a href="/about">About us and our team</a></nav>
   <main><article><h1>${title}</h1>${body}</article></main>
   <footer>© Example Corp. All rights reserved. Imprint, privacy and cookie settings.</footer></body></html>`;

describe('ingestion through the engine', () => onEachStore((store) => {
  let dir: string;
  let database: EngineDatabase;
  let engine: LocalEngine;
  let site: LoopbackServer;
  let flaky = 0;
  let manual = 'The wibble setting defaults to three.';

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-ingest-'));
    database = await store.database(dir);
    flaky = 0;
    manual = 'The wibble setting defaults to three.';
    site = await startLoopbackServer({
      '/guide': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(page('Frobnicator guide', '<h2>Installing</h2><p>Run the zorbix installer to set up the frobnicator.</p><pre><code class="language-sh">npm i -g frob</code></pre>'));
      },
      '/manual': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(page('Manual', `<p>${manual}</p>`));
      },
      '/flaky': (_request, response) => {
        if (++flaky === 1) {
          response.writeHead(503, { 'retry-after': '0', 'content-type': 'text/plain' }).end('busy');
          return;
        }
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(page('Flaky page', '<p>The quokka answers on the second try.</p>'));
      },
      // HTML lets a page leave out <html>, <head> and <body>.
      '/refunds': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end('<!doctype html><title>Refund policy</title><h1>Refunds</h1><p>Refunds of a blorpwidget are possible within 30 days.</p>');
      },
      '/logo.png': (_request, response) => {
        response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(64));
      },
    });
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings, allowPrivateNetwork: true });
    await engine.createGuru({ slug: 'frob' });
  });

  afterEach(async () => {
    await engine.close();
    await site.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const sources = async () => (await engine.listDataSources('frob', { page: 1, page_size: 100 })).results;

  it('fetches web pages, keeps the main content, and says when a URL is already a source', async () => {
    const [created] = await engine.createDataSources('frob', { website_urls: [`${site.url('/guide')}#top`] });
    expect(created).toEqual({ type: 'Website', url: site.url('/guide'), status: 'success', id: expect.any(Number), title: null });
    await engine.whenIdle();
    expect((await sources())[0]).toMatchObject({ type: 'WEBSITE', url: site.url('/guide'), title: 'Frobnicator guide', status: 'SUCCESS' });

    const answer = await engine.ask('frob', { question: 'How do I install with zorbix?', fetch_existing: false });
    expect(answer.references[0]).toMatchObject({ title: 'Frobnicator guide', link: site.url('/guide'), icon: `${site.origin}/favicon.ico` });
    expect(answer.content).toContain('Run the zorbix installer');
    // The page's <h1> repeats its <title>: the place of the passage names it once.
    expect(answer.content).toContain('From **Frobnicator guide › Installing** [1]');
    const command = await engine.ask('frob', { question: 'Which npm command installs frob?', fetch_existing: false });
    expect(command.content).toContain('```sh\nnpm i -g frob\n```');
    expect((await engine.semanticSearch('frob', { question: 'imprint privacy cookie' })).total_sources).toBe(0);

    const [again] = await engine.createDataSources('frob', { website_urls: [site.url('/guide').toUpperCase().replace('/GUIDE', '/guide')] });
    expect(again).toMatchObject({ status: 'exists', id: created!.id });
  });

  it('indexes a page that leaves out the optional <body> tag', async () => {
    await engine.createDataSources('frob', { website_urls: [site.url('/refunds')] });
    await engine.whenIdle();
    expect((await sources())[0]).toMatchObject({ url: site.url('/refunds'), title: 'Refund policy', status: 'SUCCESS', error: '' });
    const found = await engine.semanticSearch('frob', { question: 'Can I get a refund for my blorpwidget?' });
    expect(found.sources.map((source) => source.title)).toEqual(['Refund policy']);
  });

  it('retries a transient failure and fails a permanent one with the reason', async () => {
    await engine.createDataSources('frob', { website_urls: [site.url('/flaky'), site.url('/missing'), site.url('/logo.png')] });
    await engine.whenIdle();
    const byUrl = new Map((await sources()).map((source) => [source.url, source]));
    expect(byUrl.get(site.url('/flaky'))).toMatchObject({ status: 'SUCCESS', error: '' });
    expect(flaky).toBe(2);
    expect(byUrl.get(site.url('/missing'))).toMatchObject({ status: 'FAIL', error: expect.stringContaining('404') });
    expect(byUrl.get(site.url('/logo.png'))).toMatchObject({ status: 'FAIL', error: expect.stringContaining('image/png') });
  });

  it('refuses loopback addresses unless allowed, when they are added, storing nothing', async () => {
    await engine.close();
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings });
    for (const url of [site.url('/guide'), `http://localhost:${site.port}/guide`, 'http://[::1]/x', 'http://10.0.0.7/wiki']) {
      await expect(engine.createDataSources('frob', { website_urls: [url] }), url).rejects.toMatchObject({
        status: 400,
        message: 'Invalid request parameters',
        hint: expect.stringMatching(/^website_urls: .* is a (loopback|private) address; set GURU_ALLOW_PRIVATE_NETWORK=1/),
      });
    }
    expect(await sources()).toEqual([]);
    expect(site.requests).toEqual([]);
  });

  it('reads a source only as far as both the process that queued it and the one reading it may reach', async () => {
    const [created] = await engine.createDataSources('frob', { website_urls: [site.url('/manual')] });
    await engine.whenIdle();
    expect((await sources())[0]).toMatchObject({ status: 'SUCCESS' });
    const fetched = site.requests.length;

    // Another process on the data directory, without the permission, queues the source again: this one,
    // which has the permission, does the work, and refuses what the other could not have fetched.
    const without = await LocalEngine.open({ dataDir: dir, ...database.settings, processQueue: false });
    try {
      await without.reindexDataSources('frob', { ids: [created!.id] });
    } finally {
      await without.close();
    }
    await engine.whenIdle();
    expect((await sources())[0]).toMatchObject({
      status: 'FAIL',
      error: expect.stringContaining('the source was added or reindexed by a process without GURU_ALLOW_PRIVATE_NETWORK=1'),
    });
    expect(site.requests.length).toBe(fetched);

    // Queued again by a process with it, it is read.
    await engine.reindexDataSources('frob', { ids: [created!.id] });
    await engine.whenIdle();
    expect((await sources())[0]).toMatchObject({ status: 'SUCCESS', error: '' });
  });

  it('refuses a request with a bad URL as a whole, storing nothing', async () => {
    await expect(engine.createDataSources('frob', { website_urls: [site.url('/guide'), 'ftp://example.com/x'] })).rejects.toMatchObject({
      status: 400,
      message: 'Invalid request parameters',
      hint: expect.stringContaining('ftp://example.com/x'),
    });
    await expect(engine.createDataSources('frob', { youtube_urls: ['https://example.com/watch'] })).rejects.toMatchObject({ status: 400 });
    expect(await sources()).toEqual([]);
  });

  it('reads the page again on reindex, counting it', async () => {
    const [created] = await engine.createDataSources('frob', { website_urls: [site.url('/manual')] });
    await engine.whenIdle();
    manual = 'The wibble setting now defaults to seven.';
    await expect(engine.reindexDataSources('frob', { ids: [created!.id] })).resolves.toEqual({ msg: 'Reindexing 1 data source' });
    await engine.whenIdle();
    expect((await sources())[0]).toMatchObject({ status: 'SUCCESS', reindex_count: 1 });
    expect((await sources())[0]!.last_reindex_date).not.toBe((await sources())[0]!.date_created);
    const answer = await engine.ask('frob', { question: 'What does wibble default to?', fetch_existing: false });
    expect(answer.content).toContain('seven');
    await expect(engine.reindexDataSources('frob', { ids: [created!.id, 999] })).rejects.toMatchObject({ status: 400, message: 'Invalid request parameters' });
  });

  it('needs the integration before it accepts Jira issues, and reads them through it', async () => {
    const jira = await startJiraStandIn({
      email: 'bot@frob.test',
      apiToken: 'jira-token',
      issues: [{ key: 'FROB-7', summary: 'Frobnicator crashes on wibble 9', description: 'h2. Steps\nSet *wibble* to 9 and run.', comments: [] }],
    });
    try {
      const url = `${jira.baseUrl}/browse/FROB-7`;
      await expect(engine.createDataSources('frob', { jira_urls: [url] })).rejects.toMatchObject({
        status: 400,
        message: 'Jira integration is not set up for this guru',
      });
      await engine.setIntegration('frob', { kind: 'jira', base_url: jira.baseUrl, email: 'bot@frob.test', token: 'jira-token' });
      expect(await engine.listIntegrations('frob')).toEqual([
        { kind: 'jira', base_url: jira.baseUrl, email: 'bot@frob.test', date_created: expect.any(String) },
      ]);
      await engine.createDataSources('frob', { jira_urls: [url] });
      await engine.whenIdle();
      expect((await sources())[0]).toMatchObject({ type: 'JIRA', status: 'SUCCESS', title: expect.stringContaining('FROB-7') });
      expect((await engine.semanticSearch('frob', { question: 'crashes wibble' })).sources[0]?.link).toBe(url);
    } finally {
      await jira.server.close();
    }
  });

  it('reads video transcripts, and fails a video without captions with the reason', async () => {
    const youtube = await startYouTubeStandIn([
      { id: 'dQw4w9WgXcQ', title: 'Frobnicating for beginners', captions: [{ start: 0, duration: 4, text: 'Today we calibrate the zorbix coil.' }] },
      { id: 'aaaaaaaaaaa', title: 'Silent film', captions: null },
    ]);
    try {
      await engine.close();
      engine = await LocalEngine.open({ dataDir: dir, ...database.settings, allowPrivateNetwork: true, youtubeBaseUrl: youtube.baseUrl });
      await engine.createDataSources('frob', { youtube_urls: ['https://youtu.be/dQw4w9WgXcQ', 'https://www.youtube.com/watch?v=aaaaaaaaaaa'] });
      await engine.whenIdle();
      const byUrl = new Map((await sources()).map((source) => [source.url, source]));
      expect(byUrl.get('https://www.youtube.com/watch?v=dQw4w9WgXcQ')).toMatchObject({ type: 'YOUTUBE', status: 'SUCCESS', title: 'Frobnicating for beginners' });
      expect(byUrl.get('https://www.youtube.com/watch?v=aaaaaaaaaaa')).toMatchObject({ status: 'FAIL', error: expect.stringContaining('no transcript') });
      expect((await engine.semanticSearch('frob', { question: 'calibrate zorbix coil' })).total_sources).toBe(1);
    } finally {
      await youtube.server.close();
    }
  });

  it('uploads documents: extracts, indexes, refuses what it cannot read', async () => {
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    pdf.setTitle('Okapi field notes');
    pdf.addPage().drawText('The okapi eats leaves in the Ituri forest.', { x: 50, y: 700, size: 12, font });
    const data = await pdf.save();

    const results = await engine.uploadDocuments(
      'frob',
      [
        { name: 'notes.pdf', data },
        { name: 'broken.pdf', data: data.slice(0, 200) },
        { name: 'photo.png', data: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) },
      ],
      { private: true },
    );
    expect(results).toEqual([
      { name: 'notes.pdf', status: 'success', id: expect.any(Number), type: 'PDF', title: 'Okapi field notes', private: true },
      { name: 'broken.pdf', status: 'success', id: expect.any(Number), type: 'PDF', title: 'broken.pdf', private: true },
      { name: 'photo.png', status: 'refused', error: expect.any(String) },
    ]);
    await engine.whenIdle();
    const byTitle = new Map((await sources()).map((source) => [source.title, source]));
    expect(byTitle.get('Okapi field notes')).toMatchObject({ type: 'PDF', status: 'SUCCESS', private: true });
    expect(byTitle.get('Okapi field notes')).not.toHaveProperty('url');
    expect(byTitle.get('broken.pdf')).toMatchObject({ status: 'FAIL', error: expect.any(String) });
    expect((await engine.semanticSearch('frob', { question: 'okapi Ituri' })).sources[0]?.title).toBe('Okapi field notes');
  });
}));
