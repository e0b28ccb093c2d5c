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
import { isBusy, withoutWaiting, type Db } from '../store/database.js';
import { leaseOwner } from '../store/jobs.js';
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
/** A running crawl's lease: renewed every RENEW_MS; one not renewed for LEASE_MS belongs to nobody. */
const LEASE_MS = 60_000;
const RENEW_MS = 10_000;
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
  /** The last progress reported, to report only changes. */
  reported: string;
}

export class CrawlService {
  readonly #db: Db;
  readonly #crawls: CrawlRepository;
  readonly #fetcher: () => Promise<HttpFetcher>;
  readonly #logger: Logger;
  readonly #clock: () => Date;
  readonly #linkLimit: number;
  readonly #perHost: number;
  readonly #allSlots: Slots;
  readonly #siteSlots = new Map<string, Slots>();
  readonly #owner = leaseOwner(randomUUID());
  readonly #active = new Map<number, ActiveCrawl>();
  readonly #listeners = new Set<(progress: CrawlProgress) => void>();
  #ticker: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(db: Db, fetcher: () => Promise<HttpFetcher>, logger: Logger, options: CrawlServiceOptions = {}) {
    this.#db = db;
    this.#crawls = new CrawlRepository(db);
    this.#fetcher = fetcher;
    this.#logger = logger;
    this.#clock = options.clock ?? (() => new Date());
    this.#linkLimit = positive(options.linkLimit, LINK_LIMIT);
    this.#perHost = positive(options.perHost, 4);
    this.#allSlots = new Slots(positive(options.concurrency, 8));
  }

  /**
   * Stores a RUNNING crawl of `url` and starts it in the background. Refuses a URL that is not
   * absolute http(s) ("Invalid URL format") and a second running crawl of the guru.
   */
  start(guruId: number, url: string, ignoreQueryParams = true): Crawl {
    if (this.#closed) throw new Error('CrawlService.start after close()');
    const startUrl = parseStartUrl(url);
    if (startUrl === undefined) throw Errors.invalidRequest('start_crawl', INVALID_URL_HINT);
    const scope = new CrawlScope(startUrl, ignoreQueryParams);
    const row = this.#db
      .transaction(() => {
        const running = this.#crawls.runningOf(guruId);
        if (running !== undefined && !this.#endIfAbandoned(running)) throw Errors.crawlAlreadyRunning();
        return this.#crawls.create({
          guruId,
          url: scope.prefix,
          ignoreQueryParams,
          linkLimit: this.#linkLimit,
          startTime: this.#now(),
          owner: this.#owner,
          leaseExpiresAt: Date.now() + LEASE_MS,
        });
      })
      .immediate();
    this.#launch(row.id, scope);
    this.#logger.info('crawl started', { crawl: row.id, guru: row.guru_slug, url: row.url });
    return this.#crawls.toCrawl(row);
  }

  /** The crawl as stored now ("Crawl not found" unless it is one of the guru's). */
  get(guruId: number, crawlId: number): Crawl {
    const row = this.#current(this.#find(guruId, crawlId, 'crawl_status'));
    return this.#crawls.toCrawl(row);
  }

  /**
   * Stops a running crawl: STOPPED with its end time, requests under way aborted, the pages found
   * so far kept. A crawl that has ended is returned as it is. Works for a crawl another process
   * runs too: that process sees the new status within a moment and stops fetching.
   */
  stop(guruId: number, crawlId: number): Crawl {
    const row = this.#current(this.#find(guruId, crawlId, 'stop_crawl'));
    if (row.status === 'RUNNING') {
      const active = this.#active.get(row.id);
      if (active) this.#store(active);
      this.#crawls.finish(row.id, 'STOPPED', this.#now(), null);
      active?.run.abort();
      this.#logger.info('crawl stopped', { crawl: row.id });
    }
    return this.#crawls.toCrawl(this.#crawls.find(row.id)!);
  }

  /** Stops the guru's running crawl, if it has one, and resolves once this process has stopped running it. */
  async stopRunning(guruId: number): Promise<void> {
    const running = this.#crawls.runningOf(guruId);
    if (running === undefined) return;
    this.stop(guruId, running.id);
    await this.#active.get(running.id)?.done.catch(() => undefined);
  }

  /** Resolves with the crawl once it has ended, whatever the status; for waits of the CLI, MCP and tests. */
  async finished(crawlId: number): Promise<Crawl> {
    const active = this.#active.get(crawlId);
    if (active) return active.done;
    for (;;) {
      const row = this.#crawls.find(crawlId);
      if (row === undefined) throw Errors.crawlNotFound('crawl_status');
      const current = this.#current(row);
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
  recover(): number {
    let recovered = 0;
    for (const row of this.#crawls.running()) if (this.#endIfAbandoned(row)) recovered += 1;
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
      this.#store(crawl);
      this.#crawls.finish(crawl.id, 'FAILED', this.#now(), INTERRUPTED_MESSAGE);
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
      reported: '',
      done: Promise.resolve().then(() => this.#drive(active)),
    };
    // Callers await done through finished(); a crawl nobody waits for must not fail the process.
    active.done.catch(() => {});
    this.#active.set(id, active);
    this.#ticker ??= setInterval(() => this.#tick(), TICK_MS).unref();
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
      this.#store(active);
      if (outcome.status !== 'ABORTED') {
        const message = outcome.status === 'FAILED' ? outcome.reason : (outcome.note ?? null);
        if (this.#crawls.finish(active.id, outcome.status, this.#now(), message)) {
          this.#logger.info('crawl ended', { crawl: active.id, status: outcome.status, discovered: active.run.found.length, message: message ?? undefined });
        }
      }
    } finally {
      this.#active.delete(active.id);
      this.#report(active);
      this.#forget(active.origin);
    }
    return this.#crawls.toCrawl(this.#crawls.find(active.id)!);
  }

  /**
   * Stores what the crawls found, renews their leases, reports progress; stops crawls stopped
   * elsewhere. While another connection (the writer thread) holds the write lock, the tick does not
   * wait for it, which would stop the thread serving requests: the next tick stores the pages.
   */
  #tick(): void {
    for (const active of this.#active.values()) {
      try {
        if (this.#storeUnlessBusy(active) === false) {
          this.#logger.info('crawl ended by another process; stopping', { crawl: active.id });
          active.run.abort();
        }
      } catch (error) {
        this.#logger.warn('could not store crawl progress', { crawl: active.id, error: describeError(error) });
      }
      this.#report(active);
    }
  }

  /**
   * Stores the pages found since last time and renews the lease when due; false when the crawl is
   * no longer RUNNING under this process's lease (stopped or taken over elsewhere).
   */
  #store(active: ActiveCrawl): boolean {
    const { found } = active.run;
    const now = Date.now();
    if (active.stored === found.length && now - active.renewedAt < RENEW_MS) return this.#crawls.isRunningFor(active.id, this.#owner);
    const fresh = found.slice(active.stored);
    if (!this.#crawls.record(active.id, this.#owner, active.stored, fresh, now + LEASE_MS)) return false;
    active.stored = found.length;
    active.renewedAt = now;
    return true;
  }

  /** #store without waiting for another connection's write lock: undefined while it is taken. */
  #storeUnlessBusy(active: ActiveCrawl): boolean | undefined {
    try {
      return withoutWaiting(this.#db, () => this.#store(active));
    } catch (error) {
      if (isBusy(error)) return undefined;
      throw error;
    }
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

  #find(guruId: number, crawlId: number, op: 'crawl_status' | 'stop_crawl'): CrawlRow {
    const row = Number.isSafeInteger(crawlId) ? this.#crawls.find(crawlId) : undefined;
    if (row === undefined || row.guru_id !== guruId) throw Errors.crawlNotFound(op);
    return row;
  }

  /** The row, or the row after marking it FAILED when it was RUNNING and nobody runs it any more. */
  #current(row: CrawlRow): CrawlRow {
    const active = this.#active.get(row.id);
    if (active) {
      // While the write lock is taken, the crawl as last stored (at most a tick behind).
      this.#storeUnlessBusy(active);
      return this.#crawls.find(row.id)!;
    }
    return this.#endIfAbandoned(row) ? this.#crawls.find(row.id)! : row;
  }

  /** Marks a RUNNING crawl FAILED if nobody runs it any more; true when it did. */
  #endIfAbandoned(row: CrawlRow): boolean {
    if (row.status !== 'RUNNING') return false;
    const abandoned = row.lease_owner === this.#owner.id ? !this.#active.has(row.id) : isAbandoned(row, this.#owner, Date.now());
    if (!abandoned) return false;
    const ended = this.#crawls.finish(row.id, 'FAILED', this.#now(), INTERRUPTED_MESSAGE);
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
