/**
 * Works through the durable job queue: each job turns one data source's
 * content into indexed chunks. Jobs live in the database, so any process on
 * the data directory may take them: work queued by another process is found by
 * polling, work left by a process that died is taken over at once (same
 * machine) or when its lease runs out, and no two processes take the same job.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../log.js';
import type { ChunkRepository } from '../store/chunks.js';
import type { Db } from '../store/database.js';
import { leaseOwner, type JobRepository, type JobRow } from '../store/jobs.js';
import type { SourceRepository } from '../store/sources.js';
import { chunkMarkdown } from './chunker.js';

const LEASE_MS = 30_000;
const MAX_ATTEMPTS = 3;
const RETRY_BASE_MS = 1_000;
/** How often to look for work that other processes queued. */
const POLL_MS = 1_000;
const IDLE_POLL_MS = 20;

export interface ProcessorStores {
  readonly db: Db;
  readonly jobs: JobRepository;
  readonly sources: SourceRepository;
  readonly chunks: ChunkRepository;
}

export class SourceProcessor {
  readonly #stores: ProcessorStores;
  readonly #logger: Logger;
  readonly #owner = leaseOwner(randomUUID());
  readonly #index: (job: JobRow) => void;
  readonly #giveUp: (job: JobRow, reason: string) => void;
  readonly #poll: NodeJS.Timeout;
  #draining = false;
  #closed = false;
  #wakeUp: NodeJS.Timeout | undefined;

  constructor(stores: ProcessorStores, logger: Logger) {
    this.#stores = stores;
    this.#logger = logger;
    // Immediate transactions take the write lock before reading, so that two
    // processes never both read and then fail to upgrade to a write.
    const index = stores.db.transaction((job: JobRow) => this.#indexSource(job));
    this.#index = (job) => index.immediate(job);
    const giveUp = stores.db.transaction((job: JobRow, reason: string) => {
      stores.sources.markFailed(job.source_id, reason);
      stores.jobs.complete(job.id);
    });
    this.#giveUp = (job, reason) => giveUp.immediate(job, reason);
    const released = stores.jobs.releaseDeadLeases(this.#owner);
    if (released > 0) logger.info('took over work left by a stopped process', { jobs: released });
    this.#poll = setInterval(() => this.#pollForWork(), POLL_MS);
    this.#poll.unref();
  }

  /** Starts working through the queue soon, unless already at it. */
  kick(): void {
    if (this.#draining || this.#closed) return;
    this.#draining = true;
    setImmediate(() => void this.#drain());
  }

  /** Resolves once the queue holds nothing this process could still work on. */
  async whenIdle(): Promise<void> {
    while (!this.#closed && (this.#draining || this.#stores.jobs.nextAvailableAt() !== null)) {
      this.kick();
      await sleep(IDLE_POLL_MS);
    }
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#poll);
    clearTimeout(this.#wakeUp);
  }

  #pollForWork(): void {
    const at = this.#stores.jobs.nextAvailableAt();
    if (at !== null && at <= Date.now()) this.kick();
  }

  async #drain(): Promise<void> {
    try {
      for (;;) {
        if (this.#closed) return;
        const job = this.#stores.jobs.claim(this.#owner, Date.now(), LEASE_MS);
        if (!job) break;
        this.#run(job);
        // Let requests in between two jobs.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.#draining = false;
    }
    this.#scheduleWakeUp();
  }

  /** Jobs waiting for a retry, or leased by a process that may have died, come due later. */
  #scheduleWakeUp(): void {
    const at = this.#stores.jobs.nextAvailableAt();
    if (at === null || this.#closed) return;
    clearTimeout(this.#wakeUp);
    this.#wakeUp = setTimeout(() => this.kick(), Math.max(0, at - Date.now()) + 5);
    this.#wakeUp.unref();
  }

  #run(job: JobRow): void {
    // A job that keeps killing its process never reaches the catch below; stop it here.
    if (job.attempts > MAX_ATTEMPTS) {
      this.#giveUp(job, `Processing failed ${MAX_ATTEMPTS} times; the source could not be indexed.`);
      return;
    }
    try {
      this.#index(job);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (job.attempts < MAX_ATTEMPTS) {
        this.#logger.warn('data source processing failed; will retry', { source: job.source_id, attempt: job.attempts, reason });
        this.#stores.jobs.release(job.id, Date.now() + RETRY_BASE_MS * 2 ** (job.attempts - 1));
        return;
      }
      this.#logger.error('data source processing failed', { source: job.source_id, reason });
      this.#giveUp(job, `Processing failed: ${reason}`);
    }
  }

  /** Runs inside one transaction: the chunks, the status and the job change together or not at all. */
  #indexSource(job: JobRow): void {
    const { sources, chunks, jobs } = this.#stores;
    const source = sources.get(job.source_id);
    if (source) {
      const pieces = chunkMarkdown(source.content ?? '');
      if (pieces.length === 0) {
        chunks.replace(source.id, source.guru_id, '', []);
        sources.markFailed(source.id, 'The source has no text to index.');
      } else {
        chunks.replace(source.id, source.guru_id, source.title ?? source.name ?? '', pieces);
        sources.markSucceeded(source.id);
      }
    }
    jobs.complete(job.id);
  }
}
