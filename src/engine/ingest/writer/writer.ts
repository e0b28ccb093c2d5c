/**
 * Ingestion's write side, seen from the serving thread: a writer thread (writer-thread.ts) that
 * works through the job queue over a connection of its own, so that the thread serving searches
 * and answers never blocks on a commit (in WAL mode its reads never wait for the writer). This
 * thread only queues jobs (elsewhere, a short INSERT), tells the writer of them, and reads.
 *
 * The thread starts when there is work (a stdio server that only answers never starts one) and
 * stops once the queue has been empty for a while. Work queued by another process is found by
 * polling here (a read) while no writer runs. A writer thread that crashes is started again and
 * takes over the jobs it held at once; whatever it had committed stays, and what it had read but
 * not committed is read again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { describeError, type Logger } from '../../../log.js';
import type { JobRepository } from '../../store/jobs.js';
import { builtWorkerEntry } from '../built-worker.js';
import type { FromWriter, ToWriter, WriterSettings } from './writer-protocol.js';

/** How often to look for work that other processes queued, while no writer thread runs. */
const POLL_MS = 1_000;
const IDLE_POLL_MS = 20;
/** The writer thread stops after the queue has been empty this long. */
const DEFAULT_IDLE_MS = 30_000;
/** How long close() waits for the writer to commit what it read and give back its jobs. */
const CLOSE_TIMEOUT_MS = 30_000;
/** A writer thread that crashes again soon after a restart is started again later each time, up to this. */
const MAX_RESTART_DELAY_MS = 30_000;
/** A thread that ran this long before crashing counts as healthy: the next one starts at once. */
const HEALTHY_RUN_MS = 60_000;

export type WriterOptions = Omit<WriterSettings, 'takeOver' | 'idleMs'> & {
  readonly idleMs?: number;
  /** The thread's entry file; dist/bin/writer-thread.js unless set (tests wrap it). */
  readonly entry?: URL;
};

interface Thread {
  readonly worker: Worker;
  /** Its lease owner, once it has opened the database. */
  owner: string | undefined;
  /** The crashed writers' owners it was told to take over. */
  readonly takingOver: readonly string[];
  /** It said it stops (asked to, or idle) and holds no lease. */
  stopping: boolean;
  failure: Error | undefined;
  readonly startedAt: number;
}

export class IngestionWriter {
  readonly #options: WriterOptions;
  /** The serving thread's view of the queue: it only reads it. */
  readonly #jobs: JobRepository;
  readonly #logger: Logger;
  readonly #poll: NodeJS.Timeout;
  #thread: Thread | undefined;
  /** Owners of writer threads that crashed holding leases, until a new thread has taken them over. */
  #crashed: string[] = [];
  /** Crashes in a row, each soon after its restart: they space the restarts out. */
  #quickCrashes = 0;
  #restart: NodeJS.Timeout | undefined;
  /** Why the writer thread could not start, until it is tried again. */
  #failure: string | undefined;
  /** No more work is started: closed, or left to other processes. */
  #stopped = false;

  constructor(options: WriterOptions, jobs: JobRepository, logger: Logger) {
    this.#options = options;
    this.#jobs = jobs;
    this.#logger = logger;
    this.#poll = setInterval(() => void this.#pollForWork(), POLL_MS);
    this.#poll.unref();
  }

  /** There may be new work: the writer thread starts if it is not running, and looks. */
  kick(): void {
    if (this.#stopped || this.#restart) return;
    if (this.#thread) this.#send(this.#thread, { type: 'kick' });
    else this.#start();
  }

  /** Takes up queued work, including work left by an earlier run; starts nothing when there is none. */
  resume(): void {
    void this.#pollForWork();
  }

  /** Resolves once the queue holds nothing; rejects when the writer thread cannot start. */
  async whenIdle(): Promise<void> {
    while (!this.#stopped && (await this.#jobs.nextAvailableAt()) !== null) {
      if (this.#failure !== undefined) throw new Error(this.#failure);
      if (!this.#thread && !this.#restart) this.#start();
      await sleep(IDLE_POLL_MS);
    }
  }

  /** Takes no queued work in this process (short reads). */
  leave(): void {
    this.#stopped = true;
    clearInterval(this.#poll);
    clearTimeout(this.#restart);
  }

  /** The writer commits what it has read, gives back the jobs under way and stops. */
  async close(): Promise<void> {
    this.leave();
    const thread = this.#thread;
    if (!thread) return;
    const exited = new Promise<void>((resolve) => thread.worker.once('exit', () => resolve()));
    this.#send(thread, { type: 'close' });
    const timer = setTimeout(() => void thread.worker.terminate(), CLOSE_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  /** A thread that could not start is tried again with the next work queued here, not by every poll. */
  async #pollForWork(): Promise<void> {
    if (this.#stopped || this.#thread || this.#restart || this.#failure !== undefined) return;
    try {
      const queued = (await this.#jobs.nextAvailableAt()) !== null;
      // Started meanwhile (a kick), or stopped: nothing to do.
      if (queued && !this.#stopped && !this.#thread && !this.#restart) this.#start();
    } catch (error) {
      this.#logger.error('could not look for work in the queue', { reason: describeError(error) });
    }
  }

  #start(): void {
    this.#failure = undefined;
    const { entry, idleMs, ...settings } = this.#options;
    const takingOver = [...this.#crashed];
    const workerData: WriterSettings = { ...settings, takeOver: takingOver, idleMs: idleMs ?? DEFAULT_IDLE_MS };
    let worker: Worker;
    try {
      // Whatever a library prints goes to stderr: in stdio mode, stdout carries the protocol.
      worker = new Worker(entry ?? builtWorkerEntry('writer-thread.js', 'writer thread'), { workerData, stdout: true });
    } catch (error) {
      this.#cannotStart(describeError(error));
      return;
    }
    const thread: Thread = { worker, owner: undefined, takingOver, stopping: false, failure: undefined, startedAt: Date.now() };
    this.#thread = thread;
    worker.stdout.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    worker.on('message', (message: FromWriter) => this.#received(thread, message));
    worker.on('error', (error) => {
      thread.failure = error;
    });
    worker.on('exit', (code) => this.#exited(thread, code));
  }

  #send(thread: Thread, message: ToWriter): void {
    thread.worker.postMessage(message);
  }

  #received(thread: Thread, message: FromWriter): void {
    switch (message.type) {
      case 'ready':
        thread.owner = message.owner;
        this.#crashed = this.#crashed.filter((owner) => !thread.takingOver.includes(owner));
        return;
      case 'log':
        this.#logger[message.level](message.message, message.fields);
        return;
      case 'stopping':
        thread.stopping = true;
        return;
    }
  }

  #exited(thread: Thread, code: number): void {
    if (this.#thread === thread) this.#thread = undefined;
    if (!thread.stopping) {
      const reason = thread.failure?.message ?? `it exited with code ${code}`;
      if (thread.owner === undefined) {
        // A thread that cannot even open the database would fail the same way again.
        this.#cannotStart(reason);
        return;
      }
      this.#crashed.push(thread.owner);
      this.#quickCrashes = Date.now() - thread.startedAt >= HEALTHY_RUN_MS ? 0 : this.#quickCrashes + 1;
      // The first restart is at once (its leases are taken over); one that keeps crashing is not restarted in a tight loop.
      const delay = this.#quickCrashes <= 1 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 1_000 * 2 ** (this.#quickCrashes - 2));
      this.#logger.error('the writer thread stopped; starting it again', { reason, in_ms: delay });
      if (delay > 0) {
        this.#restart = setTimeout(() => {
          this.#restart = undefined;
          if (!this.#stopped && !this.#thread) this.#start();
        }, delay);
        this.#restart.unref();
        return;
      }
    }
    // Work may have come while it stopped (a kick it no longer heard), or been left by its crash.
    void this.#pollForWork();
  }

  #cannotStart(reason: string): void {
    this.#failure = `The writer thread could not start: ${reason}`;
    this.#logger.error('the writer thread could not start', { reason });
  }
}
