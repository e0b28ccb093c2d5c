/**
 * Extraction (web pages, integrations' markup and documents to Markdown) in worker threads, so
 * that the thread serving searches and answers never waits behind the decoding or parsing of a
 * large page. There is one worker per core by default: each runs at a lower priority (on Linux),
 * so the serving thread still gets a core whenever it has work and extraction uses whatever is
 * left. Workers start on the first task, not before (a stdio server that only answers never
 * starts one), and stop after a while without work. Each holds the task it runs, and can be set
 * to hold the next few too (tasksPerWorker), so that it goes on as soon as it finishes without
 * waiting for this thread (busy with fetches and commits) to hand it more. A task that runs too long, or whose worker dies (out of memory, a
 * crash), fails alone with a reason that says so; its worker is replaced, and the tasks that waited
 * behind it go to the next worker.
 *
 * The workers run dist/bin/extraction-worker.js, built by scripts/bundle.js, wherever this module
 * runs from: the bundle, tsc's dist/, or the TypeScript sources under vitest (whose global setup
 * builds dist/ first). The bundle carries a faster linkedom (see the script).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { builtWorkerEntry } from '../built-worker.js';
import { SourceError } from '../sources/types.js';
import type { DocumentKind, ExtractedDocument } from './document.js';
import type { ExtractionResults, ExtractionTask, SerializedError, WorkerMessage } from './extraction-protocol.js';
import type { ExtractedHtml } from './html.js';
import type { MarkupFormat } from './markup.js';
import type { WebPage } from './page.js';

export interface ExtractionSettings {
  /** Worker threads; by default as many as the machine's cores (they run at a lower priority than the serving thread). */
  readonly threads?: number;
  /** A task that runs longer fails its source, and its worker is replaced. */
  readonly taskTimeoutMs?: number;
  /** Old-generation heap of each worker: a page that needs more fails alone instead of taking the process. */
  readonly heapMb?: number;
  /** Tasks a worker holds at once (see TASKS_PER_WORKER); 1 unless set. */
  readonly tasksPerWorker?: number;
}

/** Turns a fetched web page into Markdown: the pool. */
export interface PageExtractor {
  extractPage(page: WebPage): Promise<ExtractedHtml>;
}

/** Turns the markup of an integration's API into Markdown: the pool. */
export interface MarkupConverter {
  markupToMarkdown(markup: string, format: MarkupFormat): Promise<string>;
}

const DEFAULT_TASK_TIMEOUT_MS = 60_000;
const DEFAULT_HEAP_MB = 1024;
/** A worker without work for this long stops, giving back its memory. */
const IDLE_MS = 30_000;
/**
 * Tasks sent to a worker at once by default: the one it runs. More can wait in a worker, already
 * there when it finishes: a batch commit keeps this thread from handing out more for 10-30 ms, a
 * page of the PostgreSQL manual takes a worker 5-10 ms, and with 4 a worker waits for work 0.9-1.9 s
 * of a 10-13 s run of the manual instead of 3.0-3.7 s (about 2 s with 2). Measured through the
 * server (interleaved, under-load part), 4 took the manual in 6.5-7.6 s instead of 8.2-10.0 s
 * while a client asked, but the client's search p99 rose from 49-62 ms to 55-103 ms: the busier
 * workers' V8 threads compete with the thread that serves requests. People asking come first.
 */
const TASKS_PER_WORKER = 1;
/**
 * A worker is sent more only while what it holds is smaller than this: a task cannot be taken
 * back from a worker, and one that waits behind a large page (3 MB take seconds) would wait
 * while another worker is free. The manual's pages are 14 KB on average, 445 KB at most.
 */
const HELD_BYTES = 128 * 1024;

export const defaultExtractionThreads = (): number => availableParallelism();

type TaskInput = ExtractionTask extends infer Task ? (Task extends ExtractionTask ? Omit<Task, 'id'> : never) : never;

interface Job {
  readonly task: ExtractionTask;
  readonly resolve: (result: ExtractionResults[keyof ExtractionResults]) => void;
  readonly reject: (error: Error) => void;
}

interface Thread {
  readonly worker: Worker;
  ready: boolean;
  /** Sent to it, in order: the first runs, the others wait in the worker for their turn. */
  readonly jobs: Job[];
  /** Ends the job that runs too long, or the thread that idles too long. */
  timer: NodeJS.Timeout | undefined;
  /** Why the worker stopped, when it reported an error before exiting. */
  failure: Error | undefined;
}

export class ExtractionPool implements PageExtractor, MarkupConverter {
  readonly #threadLimit: number;
  readonly #taskTimeoutMs: number;
  readonly #heapMb: number;
  readonly #tasksPerWorker: number;
  readonly #threads = new Set<Thread>();
  readonly #queue: Job[] = [];
  #entry: URL | undefined;
  #nextId = 1;
  #closed = false;

  constructor(settings: ExtractionSettings = {}) {
    this.#threadLimit = settings.threads ?? defaultExtractionThreads();
    this.#taskTimeoutMs = settings.taskTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS;
    this.#heapMb = settings.heapMb ?? DEFAULT_HEAP_MB;
    this.#tasksPerWorker = Math.max(1, settings.tasksPerWorker ?? TASKS_PER_WORKER);
  }

  /** The page's bytes go to a worker as they are (a copy: the caller's stay as they were), to be decoded there. */
  extractPage(page: WebPage): Promise<ExtractedHtml> {
    return this.#submit({ kind: 'page', page });
  }

  extractDocument(documentKind: DocumentKind, data: Uint8Array): Promise<ExtractedDocument> {
    return this.#submit({ kind: 'document', documentKind, data });
  }

  markupToMarkdown(markup: string, format: MarkupFormat): Promise<string> {
    return this.#submit({ kind: 'markup', markup, format });
  }

  /** Fails what is queued or running and stops every worker. */
  async close(): Promise<void> {
    this.#closed = true;
    const closing = new Error('the engine is closing');
    for (const job of this.#queue.splice(0)) job.reject(closing);
    const threads = [...this.#threads];
    this.#threads.clear();
    for (const thread of threads) {
      clearTimeout(thread.timer);
      for (const job of thread.jobs.splice(0)) job.reject(closing);
    }
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  #submit<Task extends TaskInput>(input: Task): Promise<ExtractionResults[Task['kind']]> {
    if (this.#closed) return Promise.reject(new Error('the engine is closing'));
    return new Promise((resolve, reject) => {
      const task = { ...input, id: this.#nextId++ } as ExtractionTask;
      this.#queue.push({ task, resolve: resolve as Job['resolve'], reject });
      this.#dispatch();
    });
  }

  /**
   * Hands queued jobs to idle workers, starts workers (up to the limit) for those left over, and
   * gives each busy worker its next job.
   */
  #dispatch(): void {
    this.#fill(1);
    let starting = 0;
    for (const thread of this.#threads) if (!thread.ready) starting++;
    try {
      while (this.#queue.length > starting && this.#threads.size < this.#threadLimit) {
        this.#start();
        starting++;
      }
    } catch (error) {
      if (starting === 0) this.#failQueue(`The extraction worker could not start: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.#fill(this.#tasksPerWorker);
  }

  /** Sends queued jobs to the workers that have started, until each holds `depth` (or its share of bytes). */
  #fill(depth: number): void {
    for (const thread of this.#threads) {
      while (thread.ready && thread.jobs.length < depth && this.#queue.length > 0 && (thread.jobs.length === 0 || heldBytes(thread) < HELD_BYTES)) {
        this.#send(thread, this.#queue.shift() as Job);
      }
    }
  }

  #send(thread: Thread, job: Job): void {
    thread.jobs.push(job);
    if (thread.jobs.length === 1) this.#running(thread);
    const { message, transfer } = withOwnBytes(job.task);
    thread.worker.postMessage(message, transfer);
  }

  /** The worker runs its first job from now (it takes them in order): that job's time starts. */
  #running(thread: Thread): void {
    clearTimeout(thread.timer);
    thread.worker.ref();
    thread.timer = setTimeout(() => this.#timedOut(thread), this.#taskTimeoutMs);
    thread.timer.unref();
  }

  #start(): void {
    this.#entry ??= builtWorkerEntry('extraction-worker.js', 'extraction worker');
    const worker = new Worker(this.#entry, {
      resourceLimits: { maxOldGenerationSizeMb: this.#heapMb },
      // Whatever a library prints goes to stderr: in stdio mode, stdout carries the protocol.
      stdout: true,
    });
    worker.stdout.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    const thread: Thread = { worker, ready: false, jobs: [], timer: undefined, failure: undefined };
    this.#threads.add(thread);
    worker.on('message', (message: WorkerMessage) => this.#received(thread, message));
    worker.on('error', (error) => {
      thread.failure = error;
    });
    worker.on('exit', (code) => this.#exited(thread, code));
  }

  #received(thread: Thread, message: WorkerMessage): void {
    if (message.type === 'ready') {
      thread.ready = true;
    } else {
      const job = thread.jobs[0];
      if (job === undefined || job.task.id !== message.id) return;
      thread.jobs.shift();
      if (message.type === 'done') job.resolve(message.result);
      else job.reject(deserialize(message.error));
    }
    if (!this.#threads.has(thread)) return;
    clearTimeout(thread.timer);
    thread.timer = undefined;
    if (thread.jobs.length > 0) this.#running(thread);
    this.#dispatch();
    if (thread.jobs.length === 0) this.#idle(thread);
  }

  #idle(thread: Thread): void {
    thread.worker.unref();
    thread.timer = setTimeout(() => this.#retire(thread), IDLE_MS);
    thread.timer.unref();
  }

  #retire(thread: Thread): void {
    if (thread.jobs.length > 0) return;
    this.#threads.delete(thread);
    void thread.worker.terminate();
  }

  #timedOut(thread: Thread): void {
    const job = this.#takeBack(thread);
    if (job === undefined) return;
    this.#threads.delete(thread);
    void thread.worker.terminate();
    job.reject(new SourceError(`Extracting the text of ${subjectOf(job.task)} took longer than ${seconds(this.#taskTimeoutMs)} and was stopped.`));
    this.#dispatch();
  }

  /**
   * The job a worker that is being stopped was running; those waiting behind it, which it never
   * started, go back to the front of the queue for another worker.
   */
  #takeBack(thread: Thread): Job | undefined {
    const [running, ...waiting] = thread.jobs.splice(0);
    this.#queue.unshift(...waiting);
    return running;
  }

  #exited(thread: Thread, code: number): void {
    clearTimeout(thread.timer);
    const current = this.#threads.delete(thread);
    const reason = thread.failure?.message ?? `it exited with code ${code}`;
    const job = this.#takeBack(thread);
    if (job !== undefined) {
      job.reject(new SourceError(`Extracting the text of ${subjectOf(job.task)} stopped its extraction worker: ${reason}`));
    } else if (current && !thread.ready) {
      // A worker that cannot even start would fail the same way again: fail what waits for it.
      this.#failQueue(`The extraction worker could not start: ${reason}`);
    }
    if (current) this.#dispatch();
  }

  #failQueue(reason: string): void {
    const error = new Error(reason);
    for (const job of this.#queue.splice(0)) job.reject(error);
  }
}

function subjectOf(task: ExtractionTask): string {
  switch (task.kind) {
    case 'page':
      return task.page.url;
    case 'document':
      return `the ${task.documentKind} document`;
    case 'markup':
      return task.format === 'confluence-storage' ? 'the Confluence page' : 'the HTML';
  }
}

/** The size of what a worker holds: how long it will be busy, roughly. */
function heldBytes(thread: Thread): number {
  let bytes = 0;
  for (const { task } of thread.jobs) bytes += sizeOf(task);
  return bytes;
}

function sizeOf(task: ExtractionTask): number {
  switch (task.kind) {
    case 'page':
      return task.page.body.byteLength;
    case 'document':
      return task.data.byteLength;
    case 'markup':
      return task.markup.length;
  }
}

/**
 * A task as it is sent: with a copy of the caller's bytes, moved to the worker rather than copied
 * again. The caller's stay as they were, and a task that waited in a worker that was stopped can
 * be sent to another.
 */
function withOwnBytes(task: ExtractionTask): { readonly message: ExtractionTask; readonly transfer: ArrayBuffer[] } {
  switch (task.kind) {
    case 'page': {
      const body = new Uint8Array(task.page.body);
      return { message: { ...task, page: { ...task.page, body } }, transfer: [body.buffer] };
    }
    case 'document': {
      const data = new Uint8Array(task.data);
      return { message: { ...task, data }, transfer: [data.buffer] };
    }
    case 'markup':
      return { message: task, transfer: [] };
  }
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

function deserialize(error: SerializedError): Error {
  if (error.name === 'SourceError') return new SourceError(error.message);
  const copy = new Error(error.message);
  copy.name = error.name;
  return copy;
}
