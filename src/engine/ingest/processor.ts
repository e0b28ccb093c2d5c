/**
 * Works through the durable job queue: each job reads one data source (its
 * stored text, or its URL) and indexes it as chunks. It runs in the writer thread
 * (writer/), over a database connection of its own. Jobs live in the
 * database, so any process on the data directory may take them: work queued
 * by another process is found by polling, work left by a process that died is
 * taken over within a poll (same machine, boot and PID namespace: its process
 * is gone) or when its lease runs out, and no two processes take the same job.
 *
 * Several sources are read at once, but never more than a few fetched from one host at a time
 * (a page that is being extracted holds no place of its host).
 * Transient failures (timeouts, 429, 5xx) are retried with backoff, honouring
 * Retry-After; anything else fails the source with a reason. Sources read are
 * committed in small batches: one transaction, and one new FTS5 segment, for
 * several sources, yet short enough that a search never waits long behind one.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../log.js';
import type { FullText } from '../search/full-text.js';
import { fullTextOf } from '../search/retriever.js';
import { ChunkRepository } from '../store/chunks.js';
import { LinkRepository, type NewLink } from '../store/links.js';
import { isBusy } from '../store/database.js';
import { storeClock, type StoreClock } from '../store/clock.js';
import { JobRepository, leaseOwner, type JobQueueSettings, type JobRow } from '../store/jobs.js';
import { SourceRepository } from '../store/sources.js';
import type { Sql } from '../store/sql.js';
import { linksOf } from './links.js';
import { chunkMarkdown, type Chunk } from './chunker.js';
import type { SourceReading, SourceText } from './reading.js';

/**
 * How long a claim holds unless renewed: what a process on another machine (or in another
 * container) waits before it takes over the jobs of one that died. Renewal comes every fifth of
 * it, and a process blocked waiting for another's write lock (the busy timeout, 5 s) still
 * renews in time, so a live process keeps its jobs.
 */
const LEASE_MS = 10_000;
const RENEWALS_PER_LEASE = 5;
const MAX_ATTEMPTS = 4;
const RETRY_BASE_MS = 2_000;
const RETRY_MAX_MS = 5 * 60_000;
/** How often to look for work that other processes queued. */
const POLL_MS = 1_000;
/** A batch of sources read is committed when it holds this many sources, or this much Markdown, */
const BATCH_SOURCES = 16;
const BATCH_CHARACTERS = 64 * 1024;
/** or this long after its first source was read. */
const BATCH_DELAY_MS = 20;
/**
 * Jobs held at most: being read, or read and waiting for their batch's commit. When the store is
 * slower than reading (PostgreSQL, text sources), reading on would only keep more pages in memory
 * and more jobs leased, for another process to read again if this one dies: NFCorpus had about
 * 1,500 leased at once.
 */
export const MAX_HELD_JOBS = 4 * BATCH_SOURCES;
/** A burst of indexing is over this long after its last commit: then the index is settled (FullText.settle), */
const SETTLE_DELAY_MS = 1_000;
/** at most this often (on PostgreSQL, settling vacuums the postings). */
const SETTLE_EVERY_MS = 60_000;

/** The repositories the processor works with, on one handle: its connection, or a transaction of it. */
interface Stores {
  readonly jobs: JobRepository;
  readonly sources: SourceRepository;
  readonly chunks: ChunkRepository;
  readonly links: LinkRepository;
  readonly fullText: FullText;
}

export interface ProcessorLimits {
  /** Sources read at once (fetched, or extracted). */
  readonly concurrency: number;
  /** Sources fetched at once from one host. */
  readonly perHost: number;
  /** How long a claim holds unless renewed (renewed every fifth of it); 10 s unless set. */
  readonly leaseMs?: number;
  /** Tests only: this process's clock set off by this much (ms), as a machine's clock may be. */
  readonly clockOffsetMs?: number;
}

/**
 * Enough sources under way that the extraction workers always have the next page while a few are
 * fetched, even when the serving thread is busy with requests and every step of a source waits a
 * little for it.
 */
export const DEFAULT_LIMITS: ProcessorLimits = { concurrency: 16, perHost: 4 };

/** Makes the vectors of a source's chunks; present when embeddings are configured. */
export interface Embedder {
  embedSource(sourceId: number, signal: AbortSignal): Promise<void>;
}

/** A source read and chunked: what its transaction stores. */
interface Chunked {
  readonly text: SourceText;
  /** The title its chunks carry: the one read, else the source's own. */
  readonly title: string;
  readonly pieces: readonly Chunk[];
  /** Its links to other pages of its site (sources with a URL). */
  readonly links: readonly NewLink[];
}

/** A source read and waiting for its batch to be committed. */
interface ReadSource {
  readonly job: JobRow;
  readonly chunked: Chunked;
  readonly committed: () => void;
  readonly failed: (error: unknown) => void;
}

/** What a failed read means for the job. */
type Verdict = { readonly retry: true; readonly afterMs: number } | { readonly retry: false };

function verdictOf(error: unknown, attempts: number): Verdict {
  const failure = error as { retryable?: unknown; retryAfterMs?: unknown; name?: unknown };
  // Content errors (SourceError) and permanent HTTP failures say retryable: false; unknown errors get the benefit of the doubt.
  const retryable = typeof failure?.retryable === 'boolean' ? failure.retryable : true;
  if (!retryable || attempts >= MAX_ATTEMPTS) return { retry: false };
  const backoff = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (attempts - 1));
  const asked = typeof failure.retryAfterMs === 'number' ? Math.min(failure.retryAfterMs, RETRY_MAX_MS) : 0;
  return { retry: true, afterMs: Math.max(backoff, asked) };
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export class SourceProcessor {
  readonly #sql: Sql;
  readonly #queue: JobQueueSettings;
  /** The repositories on the processor's own connection (outside its transactions). */
  readonly #stores: Stores;
  readonly #reading: SourceReading;
  readonly #logger: Logger;
  readonly #limits: ProcessorLimits;
  readonly #leaseMs: number;
  /** Lease and queue times: this machine's clock on SQLite, the database's on PostgreSQL (see store/clock.ts). */
  readonly #clock: StoreClock;
  readonly #owner = leaseOwner(randomUUID());
  readonly #embedder: Embedder | undefined;
  readonly #poll: NodeJS.Timeout;
  readonly #renew: NodeJS.Timeout;
  readonly #stopping = new AbortController();
  /** Jobs being read now, by id. */
  readonly #inFlight = new Map<number, JobRow>();
  /** Those of them still fetching, each holding a place of its host. */
  readonly #fetching = new Map<number, string>();
  /**
   * The busy hosts of the last claim that found nothing. Until new work may have come (a kick, a
   * retry given back, a batch that queued vectors), claiming again while they are all still busy
   * would find nothing either, and each try scans the queue.
   */
  #exhaustedWith: readonly string[] | undefined;
  #claiming = false;
  /** Settles when the claim last started has ended. */
  #claimed: Promise<void> | undefined;
  #closed = false;
  #wakeUp: NodeJS.Timeout | undefined;
  /** Sources read and not committed yet, with their Markdown's length. */
  #batch: ReadSource[] = [];
  #batchCharacters = 0;
  #batchTimer: NodeJS.Timeout | undefined;
  /** Sources read and waiting for their batch's commit. */
  #uncommitted = 0;
  /** Settles when the batches handed to the store so far are committed (or failed): one commits at a time. */
  #committed: Promise<void> = Promise.resolve();
  #settleTimer: NodeJS.Timeout | undefined;
  #settledAt = -Infinity;
  /** Settles when the index's last settling has ended. */
  #settling: Promise<void> = Promise.resolve();

  /**
   * `sql` is the processor's own connection (the writer thread's); `queue` marks the jobs it
   * queues itself (a source's vectors) with the thread's private-network permission.
   */
  constructor(
    sql: Sql,
    queue: JobQueueSettings,
    reading: SourceReading,
    logger: Logger,
    limits: ProcessorLimits = DEFAULT_LIMITS,
    embedder?: Embedder,
  ) {
    this.#sql = sql;
    this.#queue = queue;
    this.#stores = this.#storesOn(sql);
    this.#embedder = embedder;
    this.#reading = reading;
    this.#logger = logger;
    this.#limits = limits;
    this.#leaseMs = limits.leaseMs ?? LEASE_MS;
    const offset = limits.clockOffsetMs ?? 0;
    this.#clock = storeClock(sql, offset === 0 ? Date.now : () => Date.now() + offset);
    void this.#releaseDeadLeases().catch((error: unknown) =>
      this.#logger.error('could not take over work left by stopped processes', { reason: messageOf(error) }),
    );
    this.#poll = setInterval(() => void this.#pollForWork(), POLL_MS);
    this.#poll.unref();
    this.#renew = setInterval(() => void this.#renewLeases(), this.#leaseMs / RENEWALS_PER_LEASE);
    this.#renew.unref();
  }

  #storesOn(sql: Sql): Stores {
    return {
      jobs: new JobRepository(sql, this.#queue),
      sources: new SourceRepository(sql),
      chunks: new ChunkRepository(sql),
      links: new LinkRepository(sql),
      fullText: fullTextOf(sql),
    };
  }

  /** Who holds this processor's leases (see leaseOwner). */
  get owner(): string {
    return this.#owner.id;
  }

  /** Nothing is being claimed, read, or waiting for its batch's commit (or being committed). */
  get idle(): boolean {
    return !this.#claiming && this.#inFlight.size === 0 && this.#uncommitted === 0;
  }

  /** There may be new work: takes as many jobs as the limits allow, soon. */
  kick(): void {
    this.#exhaustedWith = undefined;
    this.#claimSoon();
  }

  /** Takes as many jobs as the limits allow, soon, unless the last claim found nothing that could be taken now. */
  #claimSoon(): void {
    if (this.#claiming || this.#closed) return;
    this.#claiming = true;
    this.#claimed = new Promise((resolve) => setImmediate(() => void this.#claimJobs().finally(resolve)));
  }

  /** Stops taking work, abandons reads under way and gives their jobs back for another process. */
  async close(): Promise<void> {
    // What was read is kept; only what is still being read is given back.
    const committed = this.#commitBatch();
    this.#closed = true;
    clearInterval(this.#poll);
    clearInterval(this.#renew);
    clearTimeout(this.#wakeUp);
    clearTimeout(this.#settleTimer);
    this.#stopping.abort(new Error('the engine is closing'));
    // A claim under way (an awaited statement on PostgreSQL) ends first: a job it takes now goes
    // back at once, before the caller closes the store under it.
    await this.#claimed;
    const unread = [...this.#inFlight.values()];
    this.#inFlight.clear();
    this.#fetching.clear();
    await committed;
    const now = await this.#clock.now();
    for (const job of unread) await this.#stores.jobs.release(job, this.#owner, now);
    await this.#settling;
  }

  /** Reads only, unless there is work: an idle process writes nothing. */
  async #pollForWork(): Promise<void> {
    if (this.#closed) return;
    try {
      const at = await this.#stores.jobs.nextAvailableAt();
      if (at === null) return;
      const released = await this.#releaseDeadLeases();
      if (released > 0 || at <= (await this.#clock.now())) this.kick();
    } catch (error) {
      this.#logger.error('could not look for work in the queue', { reason: messageOf(error) });
    }
  }

  /** Frees the jobs of processes of this machine that are gone; how many. */
  async #releaseDeadLeases(): Promise<number> {
    const released = await this.#stores.jobs.releaseDeadLeases(this.#owner);
    if (released > 0) this.#logger.info('took over work left by a stopped process', { jobs: released });
    return released;
  }

  async #renewLeases(): Promise<void> {
    if (this.#inFlight.size === 0) return;
    try {
      await this.#renewAllOn(this.#stores, await this.#clock.now());
    } catch (error) {
      this.#logger.warn('could not renew the leases of jobs under way', { reason: messageOf(error) });
    }
  }

  #busyHosts(): string[] {
    const perHost = new Map<string, number>();
    for (const host of this.#fetching.values()) perHost.set(host, (perHost.get(host) ?? 0) + 1);
    return [...perHost].filter(([, count]) => count >= this.#limits.perHost).map(([host]) => host);
  }

  async #claimJobs(): Promise<void> {
    try {
      while (!this.#closed && this.#inFlight.size < this.#limits.concurrency && this.#inFlight.size + this.#uncommitted < MAX_HELD_JOBS) {
        const busyHosts = this.#busyHosts();
        if (this.#exhaustedWith?.every((host) => busyHosts.includes(host))) break;
        const job = await this.#stores.jobs.claim(this.#owner, await this.#clock.now(), this.#leaseMs, busyHosts);
        if (!job) {
          this.#exhaustedWith = busyHosts;
          await this.#scheduleWakeUp();
          break;
        }
        if (this.#closed) {
          // Closed while claiming: the job goes back at once.
          await this.#stores.jobs.release(job, this.#owner, await this.#clock.now());
          break;
        }
        this.#inFlight.set(job.id, job);
        if (job.host !== null) this.#fetching.set(job.id, job.host);
        void this.#run(job).finally(() => this.#settled(job));
      }
    } catch (error) {
      this.#logger.error('could not take work from the queue', { reason: messageOf(error) });
    } finally {
      this.#claiming = false;
    }
  }

  /** The job needs its host no more: its place goes to the next source from there. */
  #fetched(job: JobRow): void {
    if (this.#fetching.delete(job.id)) this.#claimSoon();
  }

  #settled(job: JobRow): void {
    this.#fetching.delete(job.id);
    if (this.#inFlight.delete(job.id)) this.#claimSoon();
  }

  /** Jobs waiting for a retry, or leased by a process that may have died, come due later. */
  async #scheduleWakeUp(): Promise<void> {
    if (this.#closed) return;
    const at = await this.#stores.jobs.nextAvailableAt();
    if (at === null || this.#closed) return;
    const now = await this.#clock.now();
    if (this.#closed) return;
    clearTimeout(this.#wakeUp);
    this.#wakeUp = setTimeout(() => this.kick(), Math.max(0, at - now) + 5);
    this.#wakeUp.unref();
  }

  async #run(job: JobRow): Promise<void> {
    // A job that keeps killing its process never reaches the catch below; stop it here.
    if (job.attempts > MAX_ATTEMPTS) {
      await this.#giveUp(job, `Processing failed ${MAX_ATTEMPTS} times; the source could not be indexed.`);
      return;
    }
    const source = await this.#stores.sources.get(job.source_id);
    if (!source) {
      await this.#stores.jobs.complete(job.id);
      return;
    }
    try {
      if (job.kind === 'embed_source') {
        await this.#embedder?.embedSource(job.source_id, this.#stopping.signal);
        if (!this.#closed) await this.#finish(job);
        return;
      }
      const text = await this.#reading.read(source, this.#stopping.signal, () => this.#fetched(job), job.private_network === 1);
      if (this.#closed) return;
      // Its place goes to the next source now: waiting for the batch is no reason to read less.
      this.#settled(job);
      // Chunked before its transaction, which then holds the write lock for the inserts alone.
      const title = text.title || source.title || source.name || '';
      const links = source.url === null ? [] : linksOf(text.markdown, source.url);
      await this.#addToBatch(job, { text, title, pieces: chunkMarkdown(text.markdown, { title }), links });
    } catch (error) {
      if (this.#closed) return;
      await this.#fail(job, error);
    }
  }

  /** Resolves once the source is committed with its batch; rejects with the reason it could not be. */
  #addToBatch(job: JobRow, chunked: Chunked): Promise<void> {
    this.#uncommitted += 1;
    const stored = new Promise<void>((committed, failed) => {
      this.#batch.push({ job, chunked, committed, failed });
      this.#batchCharacters += chunked.text.markdown.length;
      if (this.#batch.length >= BATCH_SOURCES || this.#batchCharacters >= BATCH_CHARACTERS) void this.#commitBatch();
      else this.#batchTimer ??= setTimeout(() => void this.#commitBatch(), BATCH_DELAY_MS);
    });
    return stored.finally(() => {
      this.#uncommitted -= 1;
      // Claims stopped at the limit take up again.
      this.#claimSoon();
    });
  }

  /** Hands the batch to the store, after the batches before it; settles once it is committed (or failed). */
  #commitBatch(): Promise<void> {
    clearTimeout(this.#batchTimer);
    this.#batchTimer = undefined;
    const batch = this.#batch;
    this.#batch = [];
    this.#batchCharacters = 0;
    if (batch.length > 0) this.#committed = this.#committed.then(() => this.#storeBatch(batch));
    return this.#committed;
  }

  /**
   * Stores a batch in one transaction; only if that fails is it stored again with each source in a
   * savepoint of its own, so that one that cannot be stored fails alone. (A savepoint for every
   * source of every batch would first copy each page the source changes into a sub-journal: 478 MB
   * of temporary-file writes for the PostgreSQL manual, whose database is 25 MB.) The
   * transactions take the write lock before they read (SQLite: BEGIN IMMEDIATE), so that two
   * processes never both read and then fail to upgrade to a write. Never rejects: each source's
   * promise says how it went.
   */
  async #storeBatch(batch: readonly ReadSource[]): Promise<void> {
    let settles: ReadonlyArray<() => void>;
    try {
      try {
        await this.#sql.transaction(async (tx) => {
          const stores = this.#storesOn(tx);
          const stored: number[] = [];
          for (const read of batch) {
            const id = await this.#index(stores, read.job, read.chunked);
            if (id !== undefined) stored.push(id);
          }
          // The batch's sources in one call: on PostgreSQL one pass of the tokenizer and a few
          // statements for all of them (a source at a time took two to three times as long).
          await stores.fullText.indexSources(stored);
          await this.#renewAllIn(stores);
        });
        settles = batch.map((read) => read.committed);
      } catch (error) {
        // A busy lock (SQLITE_BUSY past the busy timeout) fails the other way too; the sources are retried.
        // PostgreSQL: no busy lock there (row locks wait); a lock_timeout or a lost connection would be the error to pass on here.
        if (isBusy(error)) throw error;
        settles = await this.#sql.transaction(async (tx) => {
          const stores = this.#storesOn(tx);
          const each: Array<() => void> = [];
          for (const read of batch) {
            // SAVEPOINT, RELEASE and ROLLBACK TO read the same on SQLite and PostgreSQL.
            await tx.exec('SAVEPOINT one_source');
            try {
              const id = await this.#index(stores, read.job, read.chunked);
              if (id !== undefined) await stores.fullText.indexSources([id]);
              await tx.exec('RELEASE one_source');
              each.push(read.committed);
            } catch (error) {
              await tx.exec('ROLLBACK TO one_source; RELEASE one_source');
              each.push(() => read.failed(error));
            }
          }
          await this.#renewAllIn(stores);
          return each;
        });
      }
    } catch (error) {
      // The transaction itself failed (the database busy past its timeout, say): each source is retried.
      for (const read of batch) read.failed(error);
      return;
    }
    for (const settle of settles) settle();
    this.#settleIndexLater();
    // The batch queued the vectors of its sources.
    if (this.#embedder) this.kick();
  }

  /** Settles the full-text index once the commits stop for a while, and not sooner than SETTLE_EVERY_MS after the last time. */
  #settleIndexLater(): void {
    clearTimeout(this.#settleTimer);
    this.#settleTimer = setTimeout(() => this.#settleIndex(), Math.max(SETTLE_DELAY_MS, this.#settledAt + SETTLE_EVERY_MS - Date.now()));
    this.#settleTimer.unref();
  }

  /** While sources are still being read, their batch's commit asks again. */
  #settleIndex(): void {
    if (this.#closed || !this.idle) return;
    this.#settledAt = Date.now();
    this.#settling = this.#stores.fullText.settle().catch((error: unknown) => {
      this.#logger.warn('could not tidy the search index after indexing; searches may be slower until the database does', { reason: messageOf(error) });
    });
  }

  /**
   * Renewed in each batch's transaction, once per batch: the other jobs under way are not seen
   * expired by a process that gets the write lock after a long one (the renewal timer's statement
   * waits for the transaction).
   */
  #renewAllIn(stores: Stores): Promise<void> {
    return this.#renewAllOn(stores, this.#clock.current());
  }

  /**
   * Extends the leases of the jobs under way, but not those renewed less than a renewal period ago:
   * a fast reader (text sources) keeps many jobs leased while they wait for their batch's commit,
   * and rewriting every one of those rows in each batch's transaction was most of PostgreSQL's work
   * while indexing (NFCorpus: 1.2 million row versions for 3,633 sources, and a queue table so
   * bloated that looking for the next job took 17 ms). A lease still has more than
   * (RENEWALS_PER_LEASE − 2) / RENEWALS_PER_LEASE of its time left when the timer renews it.
   */
  #renewAllOn(stores: Stores, now: number): Promise<void> {
    const until = now + this.#leaseMs;
    return stores.jobs.renewAll(this.#owner, until, until - this.#leaseMs / RENEWALS_PER_LEASE);
  }

  /** Completes a job whose work is done, unless its claim is stale. */
  #finish(job: JobRow): Promise<void> {
    return this.#sql.transaction(async (tx) => {
      const { jobs } = this.#storesOn(tx);
      if (await jobs.renew(job, this.#owner, this.#clock.current() + this.#leaseMs)) await jobs.complete(job.id);
    });
  }

  /** Fails the source for good and completes its job, unless the claim is stale. */
  #giveUp(job: JobRow, reason: string): Promise<void> {
    return this.#sql.transaction(async (tx) => {
      const { jobs, sources } = this.#storesOn(tx);
      if (await jobs.renew(job, this.#owner, this.#clock.current() + this.#leaseMs)) {
        await sources.markFailed(job.source_id, reason);
        await jobs.complete(job.id);
      }
    });
  }

  async #fail(job: JobRow, error: unknown): Promise<void> {
    const reason = messageOf(error);
    const verdict = verdictOf(error, job.attempts);
    if (verdict.retry) {
      this.#logger.warn('reading a data source failed; will retry', { source: job.source_id, attempt: job.attempts, in_ms: verdict.afterMs, reason });
      // Work that comes due later: the wake-up must know of it.
      this.#exhaustedWith = undefined;
      await this.#stores.jobs.release(job, this.#owner, (await this.#clock.now()) + verdict.afterMs);
      return;
    }
    if (job.kind === 'embed_source') {
      // The source stays searchable by its words; only its vectors are missing.
      this.#logger.warn('embedding a data source failed; it is searched lexically', { source: job.source_id, reason });
      await this.#finish(job);
      return;
    }
    this.#logger.warn('data source failed', { source: job.source_id, reason });
    await this.#giveUp(job, reason);
  }

  /**
   * Runs inside one transaction (`stores` are on it): content, chunks, status and job change
   * together or not at all. The id of the source whose chunks it wrote, for the caller to bring the
   * full-text index up to date with (fullText.indexSources) in the same transaction.
   */
  async #index({ sources, chunks, links, jobs }: Stores, job: JobRow, { text, title, pieces, links: outgoing }: Chunked): Promise<number | undefined> {
    // The claim is stale (another process took the job over, or the source was sent
    // again while it was read): the newer work counts, not this result.
    if (!(await jobs.renew(job, this.#owner, this.#clock.current() + this.#leaseMs))) return undefined;
    const source = await sources.get(job.source_id);
    let stored: number | undefined;
    if (source) {
      if (pieces.length === 0) {
        await chunks.replace(source.id, source.guru_id, '', []);
        await links.replace(source.id, source.guru_id, []);
        await sources.markFailed(source.id, 'The source has no text to index.');
      } else {
        await chunks.replace(source.id, source.guru_id, title, pieces);
        await links.replace(source.id, source.guru_id, outgoing);
        stored = source.id;
        await sources.markSucceeded(source.id, source.url === null ? undefined : { title: text.title, content: text.markdown });
        if (this.#embedder) await jobs.enqueue('embed_source', [{ id: source.id, host: null }], this.#clock.current());
      }
    }
    await jobs.complete(job.id);
    return stored;
  }
}
