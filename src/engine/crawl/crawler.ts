/**
 * Website crawls of the local engine: started, polled and stopped per guru, run in the background,
 * and durable: the crawl and the pages it found are stored as it goes, under a lease of the
 * process running it, so a crawl whose process died is seen as such and marked FAILED instead of
 * staying RUNNING. Discovery only: nothing found here is indexed.
 */
import { randomUUID } from 'node:crypto';
import { Errors } from '../../core/errors.js';
import type { Crawl } from '../../core/schemas.js';
import { describeError, type Logger } from '../../log.js';
import type { HttpFetcher } from '../../net/http-fetcher.js';
import { CrawlRepository, isAbandoned, type CrawlRow } from './repository.js';
import { storeClock, type StoreClock } from '../store/clock.js';
import { leaseOwner } from '../store/jobs.js';
import type { Sql } from '../store/sql.js';
import { CrawlRun, type RunOutcome } from './run.js';
import { CrawlScope, parseStartUrl } from './scope.js';
import { Slots } from './slots.js';

export interface CrawlProgress {
  readonly crawlId: number;
  /** Pages found so far. */
  readonly discovered: number;
  /** Requests for pages made so far, answered or not. */
  readonly fetched: number;
  /** Links waiting to be visited. */
  readonly queued: number;
}

export interface CrawlServiceOptions {
  /** Requests at once over all crawls of this process; default 8. */
  readonly concurrency?: number;
  /** Requests at once to one site (scheme, host and port); default 4. */
  readonly perHost?: number;
  /** Pages one crawl finds at most; default 1500 (the spec's `link_limit`). */
  readonly linkLimit?: number;
  /** The service's idea of now, for start and end times. */
  readonly clock?: () => Date;
}

export const LINK_LIMIT = 1500;

/** How a crawl ends whose process stopped before it did (shut down, or died). */
export const INTERRUPTED_MESSAGE = 'Interrupted: the server stopped during the crawl; start it again.';

/** How often found pages are stored and progress reported. */
const TICK_MS = 250;
/**
 * A running crawl's lease: renewed every `renewMs`; one not renewed for `leaseMs` belongs to nobody
 * and reads as FAILED (INTERRUPTED_MESSAGE). On SQLite a crawl whose process died on this machine is
 * seen at once (its PID), and a long lease spares a live process starved of the file's one write
 * lock. On PostgreSQL a process's PID is judged only on its own machine and PID namespace (boot id
 * and namespace in the lease owner, see holderHasDied); elsewhere the lease is all there is, short
 * enough that a crawl of a process that died reads as FAILED within 10 s (the goal: 15 s), and
 * nothing there holds a write back for long.
 */
const LEASES = {
  sqlite: { leaseMs: 60_000, renewMs: 10_000 },
  postgres: { leaseMs: 10_000, renewMs: 2_000 },
} as const;
/** How often finished() looks at a crawl another process runs. */
const POLL_MS = 500;

const INVALID_URL_HINT = 'Pass an absolute http:// or https:// URL, e.g. https://docs.example.com/guide/';

interface ActiveCrawl {
  readonly id: number;
  readonly run: CrawlRun;
  readonly origin: string;
  readonly done: Promise<Crawl>;
  /** How many of run.found are stored. */
  stored: number;
  renewedAt: number;
  /** The stores of this crawl run one after another: this settles when the last one has. */
  storing: Promise<unknown>;
  /** Stores asked for and not yet done. */
  writes: number;
  /** Set once the crawl is being ended here (stopped, shut down or done): it is no longer RUNNING for a reason this process knows. */
  ending: boolean;
  /** The last progress reported, to report only changes. */
  reported: string;
}

export class CrawlService {
  readonly #sql: Sql;
  readonly #crawls: CrawlRepository;
  readonly #fetcher: () => Promise<HttpFetcher>;
  readonly #logger: Logger;
  readonly #clock: () => Date;
  /** Lease times: this machine's clock on SQLite, the database's on PostgreSQL (store/clock.ts). */
  readonly #leaseClock: StoreClock;
  readonly #leaseMs: number;
  readonly #renewMs: number;
  readonly #linkLimit: number;
  readonly #perHost: number;
  readonly #allSlots: Slots;
  readonly #siteSlots = new Map<string, Slots>();
  readonly #owner = leaseOwner(randomUUID());
  readonly #active = new Map<number, ActiveCrawl>();
  /** Crawls stored by start() and not yet launched: RUNNING under this process's lease, and not abandoned. */
  readonly #starting = new Set<number>();
  readonly #listeners = new Set<(progress: CrawlProgress) => void>();
  #ticker: NodeJS.Timeout | undefined;
  /** Whether a tick is under way (a tick that comes while one is skips its turn). */
  #ticking = false;
  #closed = false;

  constructor(sql: Sql, fetcher: () => Promise<HttpFetcher>, logger: Logger, options: CrawlServiceOptions = {}) {
    this.#sql = sql;
    this.#crawls = new CrawlRepository(sql);
    this.#fetcher = fetcher;
    this.#logger = logger;
    this.#clock = options.clock ?? (() => new Date());
    this.#leaseClock = storeClock(sql);
    ({ leaseMs: this.#leaseMs, renewMs: this.#renewMs } = LEASES[sql.dialect]);
    this.#linkLimit = positive(options.linkLimit, LINK_LIMIT);
    this.#perHost = positive(options.perHost, 4);
    this.#allSlots = new Slots(positive(options.concurrency, 8));
  }

  /**
   * Stores a RUNNING crawl of `url` and starts it in the background. Refuses a URL that is not
   * absolute http(s) ("Invalid URL format") and a second running crawl of the guru.
   */
  async start(guruId: number, url: string, ignoreQueryParams = true): Promise<Crawl> {
    if (this.#closed) throw new Error('CrawlService.start after close()');
    const startUrl = parseStartUrl(url);
    if (startUrl === undefined) throw Errors.invalidRequest('start_crawl', INVALID_URL_HINT);
    const scope = new CrawlScope(startUrl, ignoreQueryParams);
    let id: number | undefined;
    const leasedAt = await this.#leaseClock.now();
    try {
      const row = await this.#sql.transaction(async (tx) => {
        const crawls = new CrawlRepository(tx);
        const running = await crawls.runningOf(guruId);
        if (running !== undefined && !(await this.#endIfAbandoned(running, crawls))) throw Errors.crawlAlreadyRunning();
        // Two starts at once (processes on PostgreSQL) may both find none running: the second's
        // insert then meets the first's row in the unique index crawls_one_running and stores nothing.
        const created = await crawls.create({
          guruId,
          url: scope.prefix,
          ignoreQueryParams,
          linkLimit: this.#linkLimit,
          startTime: this.#now(),
          owner: this.#owner,
          leaseExpiresAt: leasedAt + this.#leaseMs,
        });
        if (created === undefined) throw Errors.crawlAlreadyRunning();
        // Between the commit and the launch, the crawl is this process's, not abandoned.
        this.#starting.add((id = created.id));
        return created;
      });
      const crawl = await this.#crawls.toCrawl(row);
      this.#launch(row.id, scope);
      this.#logger.info('crawl started', { crawl: row.id, guru: row.guru_slug, url: row.url });
      return crawl;
    } finally {
      if (id !== undefined) this.#starting.delete(id);
    }
  }

  /** The crawl as stored now ("Crawl not found" unless it is one of the guru's). */
  async get(guruId: number, crawlId: number): Promise<Crawl> {
    const row = await this.#current(await this.#find(guruId, crawlId, 'crawl_status'));
    return this.#crawls.toCrawl(row);
  }

  /**
   * Stops a running crawl: STOPPED with its end time, requests under way aborted, the pages found
   * so far kept. A crawl that has ended is returned as it is. Works for a crawl another process
   * runs too: that process sees the new status within a moment and stops fetching.
   */
  async stop(guruId: number, crawlId: number): Promise<Crawl> {
    const row = await this.#current(await this.#find(guruId, crawlId, 'stop_crawl'));
    if (row.status === 'RUNNING') {
      const active = this.#active.get(row.id);
      if (active) {
        await this.#store(active);
        active.ending = true;
      }
      await this.#crawls.finish(row.id, 'STOPPED', this.#now(), null);
      active?.run.abort();
      this.#logger.info('crawl stopped', { crawl: row.id });
    }
    return this.#crawls.toCrawl((await this.#crawls.find(row.id))!);
  }

  /** Stops the guru's running crawl, if it has one, and resolves once this process has stopped running it. */
  async stopRunning(guruId: number): Promise<void> {
    const running = await this.#crawls.runningOf(guruId);
    if (running === undefined) return;
    const active = this.#active.get(running.id);
    await this.stop(guruId, running.id);
    await active?.done.catch(() => undefined);
  }

  /** Resolves with the crawl once it has ended, whatever the status; for waits of the CLI, MCP and tests. */
  async finished(crawlId: number): Promise<Crawl> {
    const active = this.#active.get(crawlId);
    if (active) return active.done;
    for (;;) {
      const row = await this.#crawls.find(crawlId);
      if (row === undefined) throw Errors.crawlNotFound('crawl_status');
      const current = await this.#current(row);
      if (current.status !== 'RUNNING') return this.#crawls.toCrawl(current);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Calls `listener` as crawls of this process make progress; returns the unsubscribe function. */
  onProgress(listener: (progress: CrawlProgress) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Marks FAILED the crawls left RUNNING by processes that died (on this machine) or stopped
   * renewing their lease. Called when the engine opens; status reads do the same per crawl.
   */
  async recover(): Promise<number> {
    let recovered = 0;
    for (const row of await this.#crawls.running()) if (await this.#endIfAbandoned(row)) recovered += 1;
    return recovered;
  }

  /**
   * Ends this process's crawls as FAILED with INTERRUPTED_MESSAGE (the pages found so far kept),
   * as a process that died would leave them: nobody asked to stop them, and they did not complete.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const active = [...this.#active.values()];
    for (const crawl of active) {
      await this.#store(crawl);
      crawl.ending = true;
      await this.#crawls.finish(crawl.id, 'FAILED', this.#now(), INTERRUPTED_MESSAGE);
      crawl.run.abort();
    }
    await Promise.allSettled(active.map((crawl) => crawl.done));
    clearInterval(this.#ticker);
    this.#ticker = undefined;
  }

  #launch(id: number, scope: CrawlScope): void {
    const run = new CrawlRun({
      scope,
      linkLimit: this.#linkLimit,
      parallel: this.#perHost,
      allSlots: this.#allSlots,
      siteSlots: this.#site(scope.origin),
      logger: this.#logger,
    });
    const active: ActiveCrawl = {
      id,
      run,
      origin: scope.origin,
      stored: 0,
      renewedAt: Date.now(),
      storing: Promise.resolve(),
      writes: 0,
      ending: false,
      reported: '',
      done: Promise.resolve().then(() => this.#drive(active)),
    };
    // Callers await done through finished(); a crawl nobody waits for must not fail the process.
    active.done.catch(() => {});
    this.#active.set(id, active);
    this.#ticker ??= setInterval(() => void this.#tick(), TICK_MS).unref();
  }

  async #drive(active: ActiveCrawl): Promise<Crawl> {
    let outcome: RunOutcome;
    try {
      outcome = await active.run.run(await this.#fetcher());
    } catch (error) {
      this.#logger.error('crawl failed unexpectedly', { crawl: active.id, error: describeError(error) });
      outcome = { status: 'FAILED', reason: 'The crawl failed on an internal error (see the server log); start it again.' };
    }
    try {
      await this.#store(active);
      active.ending = true;
      if (outcome.status !== 'ABORTED') {
        const message = outcome.status === 'FAILED' ? outcome.reason : (outcome.note ?? null);
        if (await this.#crawls.finish(active.id, outcome.status, this.#now(), message)) {
          this.#logger.info('crawl ended', { crawl: active.id, status: outcome.status, discovered: active.run.found.length, message: message ?? undefined });
        }
      }
    } finally {
      this.#active.delete(active.id);
      this.#report(active);
      this.#forget(active.origin);
    }
    return this.#crawls.toCrawl((await this.#crawls.find(active.id))!);
  }

  /**
   * Stores what the crawls found, renews their leases, reports progress; stops crawls stopped
   * elsewhere. While another connection (the writer thread) holds the write lock, the tick does not
   * wait for it: the next tick stores the pages.
   */
  async #tick(): Promise<void> {
    if (this.#ticking) return;
    this.#ticking = true;
    try {
      for (const active of [...this.#active.values()]) {
        if (!this.#active.has(active.id)) continue;
        try {
          if ((await this.#storeUnlessBusy(active)) === false && !active.ending) {
            this.#logger.info('crawl ended by another process; stopping', { crawl: active.id });
            active.run.abort();
          }
        } catch (error) {
          this.#logger.warn('could not store crawl progress', { crawl: active.id, error: describeError(error) });
        }
        this.#report(active);
      }
    } finally {
      this.#ticking = false;
    }
  }

  /**
   * Stores the pages found since last time and renews the lease when due, after the stores asked
   * for before; false when the crawl is no longer RUNNING under this process's lease (stopped or
   * taken over elsewhere).
   */
  #store(active: ActiveCrawl): Promise<boolean> {
    return this.#queueWrite(active, true) as Promise<boolean>;
  }

  /**
   * #store without waiting, neither for another connection's write lock nor for a store of the
   * crawl under way: undefined while either is (the crawl stays as last stored, at most a tick behind).
   */
  async #storeUnlessBusy(active: ActiveCrawl): Promise<boolean | undefined> {
    if (active.writes > 0) return undefined;
    return this.#queueWrite(active, false);
  }

  #queueWrite(active: ActiveCrawl, waitForLock: boolean): Promise<boolean | undefined> {
    active.writes += 1;
    const written = active.storing.then(() => this.#write(active, waitForLock)).finally(() => (active.writes -= 1));
    active.storing = written.catch(() => undefined);
    return written;
  }

  async #write(active: ActiveCrawl, waitForLock: boolean): Promise<boolean | undefined> {
    const { found } = active.run;
    const now = Date.now();
    if (active.stored === found.length && now - active.renewedAt < this.#renewMs) return this.#crawls.isRunningFor(active.id, this.#owner);
    const position = active.stored;
    const fresh = found.slice(position);
    const leasedAt = await this.#leaseClock.now();
    const record = (sql: Sql) => new CrawlRepository(sql).record(active.id, this.#owner, position, fresh, leasedAt + this.#leaseMs);
    // Unless asked to wait: skipped while another writer holds the store (SQLite: the writer thread's commit).
    const recorded = waitForLock ? await record(this.#sql) : await this.#sql.transactionIfFree(record);
    if (recorded === undefined) return undefined;
    if (!recorded) return false;
    active.stored = position + fresh.length;
    active.renewedAt = now;
    return true;
  }

  #report(active: ActiveCrawl): void {
    const { run } = active;
    const progress: CrawlProgress = { crawlId: active.id, discovered: run.found.length, fetched: run.fetched, queued: run.queued };
    const key = `${progress.discovered}/${progress.fetched}/${progress.queued}`;
    if (key === active.reported) return;
    active.reported = key;
    for (const listener of this.#listeners) {
      try {
        listener(progress);
      } catch (error) {
        this.#logger.warn('crawl progress listener failed', { error: describeError(error) });
      }
    }
  }

  /** Lets go of what a finished crawl held: its site's slots when no other crawl uses them, the ticker when idle. */
  #forget(origin: string): void {
    if (![...this.#active.values()].some((active) => active.origin === origin) && this.#siteSlots.get(origin)?.idle) {
      this.#siteSlots.delete(origin);
    }
    if (this.#active.size === 0) {
      clearInterval(this.#ticker);
      this.#ticker = undefined;
    }
  }

  async #find(guruId: number, crawlId: number, op: 'crawl_status' | 'stop_crawl'): Promise<CrawlRow> {
    const row = Number.isSafeInteger(crawlId) ? await this.#crawls.find(crawlId) : undefined;
    if (row === undefined || row.guru_id !== guruId) throw Errors.crawlNotFound(op);
    return row;
  }

  /** The row, or the row after marking it FAILED when it was RUNNING and nobody runs it any more. */
  async #current(row: CrawlRow): Promise<CrawlRow> {
    const active = this.#active.get(row.id);
    if (active) {
      // While the write lock is taken, the crawl as last stored (at most a tick behind).
      await this.#storeUnlessBusy(active);
      return (await this.#crawls.find(row.id))!;
    }
    return (await this.#endIfAbandoned(row)) ? (await this.#crawls.find(row.id))! : row;
  }

  /** Marks a RUNNING crawl FAILED if nobody runs it any more (through `crawls`: the caller's transaction, if any); true when it did. */
  async #endIfAbandoned(row: CrawlRow, crawls = this.#crawls): Promise<boolean> {
    if (row.status !== 'RUNNING') return false;
    // Inside the caller's transaction, no statement of the clock's own (see StoreClock.current).
    const now = crawls === this.#crawls ? await this.#leaseClock.now() : this.#leaseClock.current();
    const abandoned =
      row.lease_owner === this.#owner.id
        ? !this.#active.has(row.id) && !this.#starting.has(row.id)
        : isAbandoned(row, this.#owner, now, this.#sql.dialect);
    if (!abandoned) return false;
    const ended = await crawls.finish(row.id, 'FAILED', this.#now(), INTERRUPTED_MESSAGE);
    if (ended) this.#logger.warn('crawl left running by a stopped process marked FAILED', { crawl: row.id, owner: row.lease_owner ?? undefined });
    return ended;
  }

  #site(origin: string): Slots {
    let slots = this.#siteSlots.get(origin);
    if (!slots) {
      slots = new Slots(this.#perHost);
      this.#siteSlots.set(origin, slots);
    }
    return slots;
  }

  #now(): string {
    return this.#clock().toISOString();
  }
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isSafeInteger(value) && value > 0 ? value : fallback;
}
