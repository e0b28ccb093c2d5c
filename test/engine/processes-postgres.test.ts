/**
 * Several processes on one PostgreSQL store (stood in for by several pools, or engines, in this
 * process, on a throwaway server): claims take different jobs without waiting, a process whose
 * clock runs ahead takes nobody's lease, a PID of "this machine" says nothing there, and two
 * crawls of one guru started at once give one crawl and the spec's "already running".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GuruRepository } from '../../src/engine/gurus/repository.js';
import { INTERRUPTED_MESSAGE } from '../../src/engine/crawl/crawler.js';
import { CrawlRepository } from '../../src/engine/crawl/repository.js';
import { MAX_HELD_JOBS } from '../../src/engine/ingest/processor.js';
import { LocalEngine } from '../../src/engine/local-engine.js';
import { storeClock } from '../../src/engine/store/clock.js';
import { JobRepository, leaseOwner, type LeaseOwner } from '../../src/engine/store/jobs.js';
import { openStore } from '../../src/engine/store/open-store.js';
import { SourceRepository } from '../../src/engine/store/sources.js';
import type { Store } from '../../src/engine/store/sql.js';
import { freshDatabase } from '../support/postgres-databases.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';
import { startLoopbackServer } from '../support/loopback-server.js';

let postgres: TestPostgres;
let dataDir: string;

beforeAll(async () => {
  postgres = await startPostgres();
  dataDir = mkdtempSync(join(tmpdir(), 'guru-pg-processes-'));
}, 120_000);

afterAll(async () => {
  await postgres?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the job queue of several processes on PostgreSQL', () => {
  let one: Store;
  let two: Store;
  let sources: number[];

  beforeEach(async () => {
    const url = await freshDatabase(postgres);
    one = await openStore({ dataDir, databaseUrl: url });
    two = await openStore({ dataDir, databaseUrl: url });
    const guru = (await new GuruRepository(one).create('acme', 'Acme', '2026-11-28T00:00:00Z'))!;
    const repository = new SourceRepository(one);
    sources = [];
    for (const name of ['first', 'second', 'third']) {
      const row = await repository.insertDocument({ guruId: guru.id, type: 'TEXT', name, title: name, content: name, private: false, labels: [], now: '2026-11-28T00:00:00Z' });
      sources.push(row.id);
      // Queued one after the other, so that the queue's order is the sources' order.
      await new JobRepository(one).enqueue('process_source', [{ id: row.id, host: null }], (await storeClock(one).now()) + sources.length);
    }
    return async () => {
      await one.close();
      await two.close();
    };
  });

  it('gives a claim made while another is under way the next job, not the one being claimed', async () => {
    const clock = storeClock(one);
    const now = (await clock.now()) + 10;
    const first = leaseOwner('first');
    const second = leaseOwner('second');
    let other: Promise<unknown> | undefined;
    const claimed = await one.transaction(async (tx) => {
      const job = await new JobRepository(tx).claim(first, now, 10_000);
      // The first claim's row is locked until its transaction commits: the other claim either
      // passes it by, or (FOR UPDATE without SKIP LOCKED) waits for it and then takes it as well.
      let settled = false;
      other = new JobRepository(two).claim(second, now, 10_000).finally(() => (settled = true));
      await vi.waitFor(
        async () => {
          const waiting = await one.get<{ n: number }>("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
          expect(settled || waiting!.n > 0).toBe(true);
        },
        { timeout: 30_000, interval: 20 },
      );
      return job;
    });
    const took = (await other) as { source_id: number } | undefined;
    expect(claimed?.source_id).toBe(sources[0]);
    expect(took?.source_id).toBe(sources[1]);
  });

  it('lets a process whose clock runs ten minutes ahead take no lease of another process', async () => {
    const owner = leaseOwner('on-time');
    const held = await new JobRepository(one).claim(owner, (await storeClock(one).now()) + 10, 10_000);
    expect(held?.source_id).toBe(sources[0]);
    const ahead = storeClock(two, () => Date.now() + 600_000);
    const took = await new JobRepository(two).claim(leaseOwner('ahead'), await ahead.now(), 10_000);
    // The next job in the queue, not the one leased a moment ago.
    expect(took?.source_id).toBe(sources[1]);
    const { lease_owner: leasedTo } = (await one.get<{ lease_owner: string }>('SELECT lease_owner FROM jobs WHERE source_id = ?', [sources[0]]))!;
    expect(leasedTo).toBe(owner.id);
  });

  it("frees the lease of a dead process of this machine's host name, boot and PID namespace", async () => {
    const self = leaseOwner('self');
    const gone = ownerOf(self, deadPid());
    await new JobRepository(one).claim(gone, (await storeClock(one).now()) + 10, 600_000);
    expect(await new JobRepository(two).releaseDeadLeases(self)).toBe(1);
    const took = await new JobRepository(two).claim(self, (await storeClock(two).now()) + 10, 10_000);
    expect(took?.source_id).toBe(sources[0]);
  });

  it('frees no lease by a PID of another boot or PID namespace: the PID may be a live process there', async () => {
    const self = leaseOwner('self');
    const pid = deadPid();
    const repository = new JobRepository(one);
    const now = (await storeClock(one).now()) + 10;
    // Another machine with the same host name (its boot id), a container on this one (its PID
    // namespace), and a process that could read neither (no boot id).
    const others = [
      { ...ownerOf(self, pid), id: `${self.host}/${pid}/x/0b0e5a2c-0000-4000-8000-000000000000` },
      { ...ownerOf(self, pid), id: `${self.host.replace(/\[\d+\]$/, '[1]')}/${pid}/x/${self.boot}` },
      { ...ownerOf(self, pid), id: `${self.host}/${pid}/x` },
    ];
    for (const owner of others) await repository.claim(owner, now, 600_000);
    expect(await new JobRepository(two).releaseDeadLeases(self)).toBe(0);
    expect(await new JobRepository(two).claim(self, (await storeClock(two).now()) + 10, 10_000)).toBeUndefined();
  });
});

/** A lease owner of this machine's identity (leaseOwner's) whose PID is `pid`. */
function ownerOf(self: LeaseOwner, pid: number): LeaseOwner {
  const [host, , instance, boot] = self.id.split('/');
  return { ...self, id: [host, pid, instance, boot].filter((part) => part !== undefined).join('/'), pid };
}

/** The PID of a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

describe('ingestion by several processes on PostgreSQL', () => {
  it('takes over at once a job leased by a process of this machine that has died, long before its lease runs out', async () => {
    const databaseUrl = await freshDatabase(postgres);
    const store = await openStore({ dataDir, databaseUrl });
    try {
      const guru = (await new GuruRepository(store).create('shared', 'Shared', '2026-11-28T00:00:00Z'))!;
      const source = await new SourceRepository(store).insertDocument({
        guruId: guru.id, type: 'TEXT', name: 'n', title: 'n', content: 'The tapir wades.', private: false, labels: [], now: '2026-11-28T00:00:00Z',
      });
      const jobs = new JobRepository(store);
      const now = await storeClock(store).now();
      await jobs.enqueue('process_source', [{ id: source.id, host: null }], now);
      // Leased for ten minutes by a process that has exited, as a server killed mid-job leaves it.
      expect(await jobs.claim(ownerOf(leaseOwner('killed'), deadPid()), now + 10, 600_000)).toBeDefined();
    } finally {
      await store.close();
    }
    const engine = await LocalEngine.open({ dataDir, databaseUrl });
    try {
      await engine.whenIdle();
      const [listed] = (await engine.listDataSources('shared', { page: 1, page_size: 10 })).results;
      expect(listed?.status).toBe('SUCCESS');
    } finally {
      await engine.close();
    }
  });

  it("lets a process whose clock runs ten minutes ahead take the next job, not the one another process is reading", async () => {
    const databaseUrl = await freshDatabase(postgres);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const site = await startLoopbackServer({
      '/held': async (_request, response) => {
        await held;
        response.writeHead(200, { 'content-type': 'text/plain' }).end('The okapi reads slowly.');
      },
    });
    // One source at a time: the first process is busy with the held page while the second works.
    const first = await LocalEngine.open({ dataDir, databaseUrl, allowPrivateNetwork: true, processing: { concurrency: 1, perHost: 1 } });
    let second: LocalEngine | undefined;
    try {
      await first.createGuru({ slug: 'docs' });
      await first.createDataSources('docs', { website_urls: [site.url('/held')] });
      await vi.waitFor(() => expect(site.requests).toHaveLength(1), { timeout: 30_000, interval: 20 });
      second = await LocalEngine.open({ dataDir, databaseUrl, allowPrivateNetwork: true, processing: { concurrency: 1, perHost: 1, clockOffsetMs: 600_000 } });
      // Queued after the held page: a claim that took expired-looking leases would take the held page first.
      const [text] = await second.createDataSources('docs', { text_sources: [{ name: 'Tapir', content: 'The tapir wades.' }] });
      await vi.waitFor(
        async () => {
          const listed = (await second!.listDataSources('docs', { page: 1, page_size: 10 })).results;
          expect(listed.find((source) => source.id === text!.id)?.status).toBe('SUCCESS');
        },
        { timeout: 60_000, interval: 50 },
      );
      release();
      await first.whenIdle();
      await second.whenIdle();
      const listed = (await first.listDataSources('docs', { page: 1, page_size: 10 })).results;
      expect(listed.map((source) => source.status)).toEqual(['SUCCESS', 'SUCCESS']);
      expect(site.requests.map((request) => request.path)).toEqual(['/held']);
    } finally {
      release();
      await second?.close();
      await first.close();
      await site.close();
    }
  });
});

describe('reading ahead of the commits on PostgreSQL', () => {
  it(`holds at most ${MAX_HELD_JOBS} jobs (being read, or read and not committed) while the store is slower than reading`, async () => {
    const databaseUrl = await freshDatabase(postgres);
    const engine = await LocalEngine.open({ dataDir, databaseUrl });
    const blocker = await openStore({ dataDir, databaseUrl });
    let unblock!: () => void;
    const unblocked = new Promise<void>((resolve) => (unblock = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    // No posting can be written until the blocker's transaction ends: every batch's commit waits.
    const blocking = blocker.transaction(async (tx) => {
      await tx.exec('LOCK TABLE chunk_terms IN SHARE MODE');
      locked();
      await unblocked;
    });
    const leased = async () => (await blocker.get<{ n: number }>('SELECT count(*) AS n FROM jobs WHERE lease_owner IS NOT NULL'))?.n;
    try {
      await isLocked;
      await engine.createGuru({ slug: 'notes', name: 'Notes' });
      const count = 3 * MAX_HELD_JOBS;
      await engine.createDataSources('notes', {
        text_sources: Array.from({ length: count }, (_, index) => ({ name: `note ${index}`, content: `Note ${index} on tapirs.` })),
      });
      // Text is read at once: the reads stop at the limit, not at the end of the queue.
      await expect.poll(leased, { timeout: 30_000 }).toBe(MAX_HELD_JOBS);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await leased()).toBe(MAX_HELD_JOBS);
      unblock();
      await blocking;
      await engine.whenIdle();
      const statuses = await blocker.all<{ status: string; n: number }>('SELECT status, count(*) AS n FROM data_sources GROUP BY status');
      expect(statuses).toEqual([{ status: 'SUCCESS', n: count }]);
    } finally {
      unblock();
      await blocking.catch(() => undefined);
      await blocker.close();
      await engine.close();
    }
  }, 90_000);
});

describe('crawls of several processes on PostgreSQL', () => {
  it('reads as FAILED at once a crawl left running by a dead process of this machine, and not one of another boot', async () => {
    const databaseUrl = await freshDatabase(postgres);
    const store = await openStore({ dataDir, databaseUrl });
    const ids: number[] = [];
    try {
      const leaseExpiresAt = (await storeClock(store).now()) + 600_000;
      const dead = ownerOf(leaseOwner('killed'), deadPid());
      const elsewhere = { ...dead, id: `${dead.host}/${dead.pid}/killed/0b0e5a2c-0000-4000-8000-000000000000` };
      // One running crawl per guru.
      for (const [slug, owner] of [['here', dead], ['there', elsewhere]] as const) {
        const guru = (await new GuruRepository(store).create(slug, slug, '2026-11-28T00:00:00Z'))!;
        const crawl = { guruId: guru.id, url: 'https://example.com/', ignoreQueryParams: true, linkLimit: 10, startTime: new Date().toISOString(), owner, leaseExpiresAt };
        ids.push((await new CrawlRepository(store).create(crawl))!.id);
      }
    } finally {
      await store.close();
    }
    const engine = await LocalEngine.open({ dataDir, databaseUrl, processQueue: false });
    try {
      expect(await engine.crawlStatus('here', ids[0]!)).toMatchObject({ status: 'FAILED', error_message: INTERRUPTED_MESSAGE });
      expect((await engine.crawlStatus('there', ids[1]!)).status).toBe('RUNNING');
    } finally {
      await engine.close();
    }
  });

  it('starts one crawl of two started at once, and answers the other "already running"', async () => {
    const databaseUrl = await freshDatabase(postgres);
    const site = await startLoopbackServer({ '/': (_request, response) => void response.writeHead(200, { 'content-type': 'text/html' }).end('<p>home</p>') });
    const first = await LocalEngine.open({ dataDir, databaseUrl, allowPrivateNetwork: true });
    const second = await LocalEngine.open({ dataDir, databaseUrl, allowPrivateNetwork: true });
    try {
      await first.createGuru({ slug: 'docs' });
      for (let round = 0; round < 3; round += 1) {
        const outcomes = await Promise.allSettled([first, second].map((engine) => engine.startCrawl('docs', { url: site.url('/'), ignore_query_params: true })));
        const started = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
        expect(started).toHaveLength(1);
        expect(refused.map((outcome) => (outcome.reason as Error).message)).toEqual([
          'A crawl is already running for this guru. Please wait for it to complete or stop it.',
        ]);
        const crawl = (started[0] as PromiseFulfilledResult<{ id: number }>).value;
        const engine = outcomes[0]!.status === 'fulfilled' ? first : second;
        await engine.stopCrawl('docs', crawl.id);
      }
    } finally {
      await second.close();
      await first.close();
      await site.close();
    }
  });
});
