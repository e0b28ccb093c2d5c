/**
 * The engine extracts web pages and documents in worker threads: a page that hangs its worker or
 * kills it fails as a source of its own while the others are indexed, an engine that only holds
 * texts starts no extraction worker (only the writer thread, which starts the extraction workers
 * for pages as its own), and closing the engine leaves none running.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalEngine, type LocalEngineOptions } from '../../src/engine/local-engine.js';
import { reportPdf } from '../support/documents.js';
import { respond, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';
import { BLOG_PAGE, DOCS_PAGE } from '../support/pages.js';

/**
 * Some 6 MB of paragraphs: more than a worker with a 32 MB heap can hold as a DOM, and seconds of
 * parsing, far past a 0.5 s task limit (deeply nested pages, slow before, are now cut short).
 */
const HUGE_PAGE = `<html><body><main>${'<p>Some words of text here, <b>bold</b> and <i>more</i>.</p>'.repeat(100_000)}</main></body></html>`;

describe('extraction workers in the engine', () => {
  let dir: string;
  let site: LoopbackServer;
  let engine: LocalEngine | undefined;
  /** Every worker thread the test's thread started (not those started by a worker), and whether it has exited. */
  let workers: Array<{ exited: boolean }>;
  const onWorker = (worker: Worker) => {
    const watched = { exited: false };
    worker.once('exit', () => {
      watched.exited = true;
    });
    workers.push(watched);
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-workers-'));
    workers = [];
    process.on('worker', onWorker);
    site = await startLoopbackServer({
      '/docs': respond(DOCS_PAGE, { 'content-type': 'text/html; charset=utf-8' }),
      '/blog': respond(BLOG_PAGE, { 'content-type': 'text/html; charset=utf-8' }),
      '/slow': respond(HUGE_PAGE, { 'content-type': 'text/html; charset=utf-8' }),
      '/huge': respond(HUGE_PAGE, { 'content-type': 'text/html; charset=utf-8' }),
    });
  });

  afterEach(async () => {
    process.off('worker', onWorker);
    await engine?.close();
    engine = undefined;
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function openEngine(extraction: LocalEngineOptions['extraction']): Promise<LocalEngine> {
    engine = await LocalEngine.open({ dataDir: dir, allowPrivateNetwork: true, extraction, processing: { concurrency: 1, perHost: 1 } });
    await engine.createGuru({ slug: 'docs' });
    return engine;
  }

  /** Adds the pages one after another (one read at a time) and waits until all are processed. */
  async function ingest(opened: LocalEngine, paths: readonly string[]) {
    const created = await opened.createDataSources('docs', { website_urls: paths.map((path) => site.url(path)) });
    await opened.whenIdle();
    const listed = (await opened.listDataSources('docs', { page: 1, page_size: 100 })).results;
    return created.map(({ id }) => listed.find((source) => source.id === id));
  }

  it('fails a page whose extraction hangs, with the reason, and indexes the pages after it', async () => {
    const opened = await openEngine({ threads: 1, taskTimeoutMs: 500 });
    // The first page alone: a worker still compiling its code could take 0.5 s for it on a busy machine.
    const [docs] = await ingest(opened, ['/docs']);
    const [slow, blog] = await ingest(opened, ['/slow', '/blog']);

    expect(docs).toMatchObject({ status: 'SUCCESS', title: 'Connection pooling' });
    expect(slow).toMatchObject({ status: 'FAIL', error: `Extracting the text of ${site.url('/slow')} took longer than 0.5 s and was stopped.` });
    expect(blog).toMatchObject({ status: 'SUCCESS', title: 'Why we moved to SQLite' });
    expect((await opened.semanticSearch('docs', { question: 'writer commits' })).sources[0]).toMatchObject({ title: 'Why we moved to SQLite' });
  });

  it('fails a page that kills its worker, with the reason, and indexes the pages after it', async () => {
    const opened = await openEngine({ threads: 1, heapMb: 32 });
    const [huge, docs] = await ingest(opened, ['/huge', '/docs']);

    expect(huge?.status).toBe('FAIL');
    expect(huge?.error).toMatch(new RegExp(`^Extracting the text of ${site.url('/huge').replace(/[.?]/g, '\\$&')} stopped its extraction worker: .*memory`));
    expect(docs).toMatchObject({ status: 'SUCCESS', title: 'Connection pooling' });
  });

  it('extracts uploaded documents in a worker', async () => {
    const opened = await openEngine({ threads: 1 });
    const [uploaded] = await opened.uploadDocuments('docs', [{ name: 'report.pdf', data: await reportPdf() }]);
    expect(uploaded).toMatchObject({ status: 'success', title: 'Quarterly Report' });
    expect(workers).toHaveLength(1);
  });

  it('starts only the writer thread for text sources, and none is left running once the engine is closed', async () => {
    const opened = await openEngine({ threads: 2 });
    expect(workers).toHaveLength(0);
    await opened.createDataSources('docs', { text_sources: [{ name: 'note', content: 'The quokka answers on the first try.' }] });
    await opened.whenIdle();
    expect(workers).toHaveLength(1);

    const pages = await ingest(opened, ['/docs', '/blog']);
    expect(pages.map((page) => page?.status)).toEqual(['SUCCESS', 'SUCCESS']);
    // The pages were extracted by workers of the writer thread's own: this thread started no other.
    expect(workers).toHaveLength(1);
    await opened.close();
    expect(workers.every((worker) => worker.exited)).toBe(true);
  });
});
