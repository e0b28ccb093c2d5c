/**
 * Ingestion's writes happen in the writer thread, over a connection of its own: the serving
 * thread's connection writes nothing but the queue, the thread starts only with work and stops
 * when idle, a crashed writer thread is started again and loses nothing, and the serving thread
 * answers while a batch commit waits for the write lock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IngestionWriter, type WriterOptions } from '../../../src/engine/ingest/writer/writer.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { openDatabase, type Db } from '../../../src/engine/store/database.js';
import { JobRepository } from '../../../src/engine/store/jobs.js';
import { SqliteSql } from '../../../src/engine/store/sqlite-sql.js';
import { createLogger } from '../../../src/log.js';
import { startLoopbackServer, type LoopbackServer } from '../../support/loopback-server.js';

describe('the writer thread', () => {
  let dir: string;
  let db: Db | undefined;
  let writer: IngestionWriter | undefined;
  let engine: LocalEngine | undefined;
  let site: LoopbackServer | undefined;
  let logged: string[];
  /** Worker threads started by this thread, and whether each has exited. */
  let threads: Array<{ exited: boolean }>;
  const onWorker = (worker: Worker) => {
    const watched = { exited: false };
    worker.once('exit', () => (watched.exited = true));
    threads.push(watched);
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-writer-'));
    logged = [];
    threads = [];
    process.on('worker', onWorker);
    // An engine that takes no work: it creates the guru and queues sources, as another process would.
    const setup = await LocalEngine.open({ dataDir: dir, processQueue: false });
    await setup.createGuru({ slug: 'docs' });
    await setup.close();
  });

  afterEach(async () => {
    process.off('worker', onWorker);
    await writer?.close();
    writer = undefined;
    await engine?.close();
    engine = undefined;
    db?.close();
    db = undefined;
    await site?.close();
    site = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** Queues sources from an engine that does not process them. */
  async function queue(request: Parameters<LocalEngine['createDataSources']>[1]): Promise<number[]> {
    const queueing = await LocalEngine.open({ dataDir: dir, processQueue: false, allowPrivateNetwork: true });
    try {
      return (await queueing.createDataSources('docs', request)).map((created) => created.id);
    } finally {
      await queueing.close();
    }
  }

  function openWriter(options: Partial<WriterOptions> = {}): IngestionWriter {
    db = openDatabase(dir);
    writer = new IngestionWriter(
      { dataDir: dir, allowPrivateNetwork: true, ...options },
      new JobRepository(new SqliteSql(db)),
      createLogger('info', (line) => logged.push(line)),
    );
    return writer;
  }

  const statuses = (): string[] =>
    (db as Db).prepare<[], { status: string }>('SELECT status FROM data_sources ORDER BY id').all().map((row) => row.status);
  /** Rows this connection has written since it opened. */
  const writtenBy = (connection: Db): number => (connection.prepare('SELECT total_changes() AS n').get() as { n: number }).n;

  it('starts only with work, writes everything in its own connection, and stops once idle', async () => {
    const opened = openWriter({ idleMs: 100 });
    opened.resume();
    await sleep(50);
    expect(threads).toHaveLength(0);

    const texts = Array.from({ length: 40 }, (_, i) => ({ name: `note ${i}`, content: `# Note ${i}\n\nThe okapi number ${i} grazes.` }));
    await queue({ text_sources: texts });
    const before = writtenBy(db as Db);
    opened.kick();
    await opened.whenIdle();
    expect(threads).toHaveLength(1);
    expect(statuses()).toEqual(texts.map(() => 'SUCCESS'));
    expect(((db as Db).prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n).toBe(40);
    // The serving thread's connection wrote none of it: chunks, statuses and jobs are the writer's.
    expect(writtenBy(db as Db)).toBe(before);

    while (!threads[0]?.exited) await sleep(50);
    await queue({ text_sources: [{ name: 'late', content: 'The tapir arrives late.' }] });
    opened.kick();
    await opened.whenIdle();
    expect(threads).toHaveLength(2);
    expect(statuses().at(-1)).toBe('SUCCESS');
  });

  it('stores a batch in one transaction, and stores the rest of it when one of its sources cannot be stored', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => ({ name: `note ${i}`, content: `# Note ${i}\n\nThe okapi number ${i} grazes.` }));
    texts[5] = { name: 'refused', content: '# Refused\n\nThe mandrake screams.' };
    await queue({ text_sources: texts });
    // A trigger in the schema refuses one source's chunk: the batch's transaction fails as a whole,
    // and its sources are stored again one by one.
    const schema = openDatabase(dir);
    schema.exec(`CREATE TRIGGER refuse_mandrakes BEFORE INSERT ON chunks WHEN NEW.body LIKE '%mandrake%'
                 BEGIN SELECT RAISE(ABORT, 'mandrakes are not stored'); END`);
    schema.close();
    openWriter().resume();

    const expected = texts.map((text) => (text.name === 'refused' ? 'NOT_PROCESSED' : 'SUCCESS'));
    while (statuses().join() !== expected.join() || !logged.some((line) => line.includes('mandrakes are not stored'))) await sleep(20);
    expect(((db as Db).prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n).toBe(11);
    // The refused source is not failed for good: an unknown error gets the benefit of the doubt.
    expect(logged.find((line) => line.includes('mandrakes are not stored'))).toContain('will retry');
  });

  it('is started again after a crash, takes over its jobs at once, and loses nothing', async () => {
    let slowRequests = 0;
    let arrived: () => void = () => {};
    const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
    site = await startLoopbackServer({
      '/slow': async (_request, response) => {
        slowRequests++;
        arrived();
        await sleep(1_000);
        response.writeHead(200, { 'content-type': 'text/plain' }).end('The slow page tells of the pangolin.');
      },
    });
    const [slow] = await queue({ website_urls: [site.url('/slow')] });
    // Leases that would outlast the test: only taking them over at once lets the work finish.
    const opened = openWriter({
      entry: new URL('../../support/crashing-writer-thread.mjs', import.meta.url),
      processing: { concurrency: 4, perHost: 1, leaseMs: 600_000 },
    });
    opened.resume();
    await slowArrived;
    // The thread crashes once the first of these is committed, with the slow page under way.
    const texts = Array.from({ length: 30 }, (_, i) => ({ name: `note ${i}`, content: `The okapi number ${i} grazes.` }));
    await queue({ text_sources: texts });
    opened.kick();
    await opened.whenIdle();

    expect(statuses()).toEqual([slow, ...texts].map(() => 'SUCCESS'));
    expect(((db as Db).prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n).toBe(0);
    expect(threads).toHaveLength(2);
    expect(slowRequests).toBe(2);
    expect(logged.join('')).toMatch(/error the writer thread stopped; starting it again reason="it exited with code 70"/);
    expect(logged.join('')).toMatch(/info took over work left by a crashed writer thread jobs=\d+/);
  });

  it('spaces out the restarts of a thread that crashes every time, instead of starting it in a tight loop', async () => {
    site = await startLoopbackServer({
      '/slow': async (_request, response) => {
        await sleep(10_000);
        response.writeHead(200, { 'content-type': 'text/plain' }).end('Too late.');
      },
    });
    await queue({ website_urls: [site.url('/slow')] });
    const opened = openWriter({ entry: new URL('../../support/always-crashing-writer-thread.mjs', import.meta.url) });
    opened.resume();
    await sleep(3_000);
    const restarts = logged.filter((line) => line.includes('the writer thread stopped; starting it again')).length;
    // At once after the first crash, then after 1 s, 2 s, 4 s…: three or four starts in 3 s, not hundreds.
    expect(restarts).toBeGreaterThanOrEqual(2);
    expect(restarts).toBeLessThanOrEqual(4);
    expect(threads.length).toBeLessThanOrEqual(4);
  });

  it('says why when the thread cannot start, instead of waiting for work that cannot be done', async () => {
    await queue({ text_sources: [{ name: 'note', content: 'The okapi waits.' }] });
    const opened = openWriter({ entry: new URL('../../support/no-such-writer-thread.mjs', import.meta.url) });
    opened.kick();
    await expect(opened.whenIdle()).rejects.toThrow(/^The writer thread could not start: .*no-such-writer-thread\.mjs/);
    expect(logged.join('')).toMatch(/error the writer thread could not start/);
    expect(statuses()).toEqual(['NOT_PROCESSED']);
  });

  it('lets the serving thread read while a batch commit waits for the write lock', async () => {
    let requested: () => void = () => {};
    const pageRequested = new Promise<void>((resolve) => (requested = resolve));
    let served: () => void = () => {};
    const pageServed = new Promise<void>((resolve) => (served = resolve));
    let serve: () => void = () => {};
    const mayServe = new Promise<void>((resolve) => (serve = resolve));
    site = await startLoopbackServer({
      '/page': async (_request, response) => {
        requested();
        await mayServe;
        response.writeHead(200, { 'content-type': 'text/plain' }).end('The numbat eats termites by the thousand.');
        served();
      },
    });
    engine = await LocalEngine.open({ dataDir: dir, allowPrivateNetwork: true });
    await engine.createDataSources('docs', { text_sources: [{ name: 'first', content: 'The aardvark digs at night.' }] });
    await engine.whenIdle();
    const [page] = await engine.createDataSources('docs', { website_urls: [site.url('/page')] });

    // Once the page is claimed and asked for, another process takes the write lock: the writer's commit of the page waits for it.
    await pageRequested;
    const other = new Database(join(dir, 'guru.sqlite'));
    other.exec('BEGIN IMMEDIATE');
    const delay = monitorEventLoopDelay({ resolution: 10 });
    try {
      serve();
      await pageServed;
      delay.enable();
      // Reads only: a search would also log itself, and that write would wait for the lock too.
      let answered = 0;
      const until = Date.now() + 1_500;
      while (Date.now() < until) {
        const listed = (await engine.listDataSources('docs', { page: 1, page_size: 10 })).results;
        expect(listed.find((source) => source.id === page?.id)?.status).toBe('NOT_PROCESSED');
        answered++;
        await sleep(20);
      }
      delay.disable();
      expect(answered).toBeGreaterThan(10);
      // A commit on this thread would have blocked it until the lock was given up (up to the 5 s busy timeout).
      expect(delay.max / 1e6).toBeLessThan(1_000);
    } finally {
      other.exec('COMMIT');
      other.close();
    }
    await engine.whenIdle();
    expect((await engine.semanticSearch('docs', { question: 'numbat termites' })).total_sources).toBe(1);
  });
});
