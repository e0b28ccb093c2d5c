/**
 * MP3 encoding in worker threads, so that the thread serving searches and answers never runs it
 * (LAME takes a few hundred milliseconds of CPU for a minute of audio). A stream leases a thread
 * for its whole length, since the encoder carries state from one piece of text to the next; the
 * number of threads is bounded by the number of streams open at once (speech-slots.ts). A thread
 * left idle waits a while for the next stream (starting one and loading its WebAssembly costs
 * tens of milliseconds), then stops.
 *
 * The threads run dist/bin/mp3-worker.js, built by scripts/bundle.js, wherever this module runs
 * from (see built-worker.ts).
 */
import { Worker } from 'node:worker_threads';
import { builtWorkerEntry } from '../ingest/built-worker.js';
import type { EncoderReply, EncoderRequest } from './mp3-protocol.js';

/** A thread without a stream for this long stops, giving back its memory. */
const IDLE_MS = 30_000;

/** One stream's encoder, in a thread of its own until release(). */
export interface Mp3Encoding {
  /** MP3 bytes for one piece's WAV audio; may be empty while the encoder fills a frame. */
  encode(wav: Uint8Array): Promise<Uint8Array>;
  /** The last frames. */
  finish(): Promise<Uint8Array>;
  /** Gives the thread back, finished or not; whatever it was still doing for this stream is dropped. */
  release(): void;
}

interface Pending {
  readonly resolve: (bytes: Uint8Array) => void;
  readonly reject: (error: Error) => void;
}

interface Thread {
  readonly worker: Worker;
  /** Requests sent and not yet answered, in order. */
  readonly pending: Pending[];
  /** Why it stopped, once it has. */
  failure: Error | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

export class Mp3Encoders {
  readonly #idle: Thread[] = [];
  readonly #all = new Set<Thread>();
  #entry: URL | undefined;
  #closed = false;

  /** A thread for one stream; throws when the encoder thread's file is missing. */
  lease(): Mp3Encoding {
    if (this.#closed) throw new Error('the engine is closing');
    const thread = this.#idle.pop() ?? this.#start();
    clearTimeout(thread.idleTimer);
    thread.worker.ref();
    let released = false;
    const request = (message: EncoderRequest, transfer: ArrayBuffer[] = []): Promise<Uint8Array> => {
      if (released) return Promise.reject(new Error('the MP3 encoder was released'));
      if (thread.failure !== undefined) return Promise.reject(thread.failure);
      return new Promise((resolve, reject) => {
        thread.pending.push({ resolve, reject });
        thread.worker.postMessage(message, transfer);
      });
    };
    return {
      // The WAV goes over as it is (moved, not copied) when it is the whole of its buffer.
      encode: (wav) => request({ type: 'encode', wav }, wav.byteOffset === 0 && wav.byteLength === wav.buffer.byteLength ? [wav.buffer as ArrayBuffer] : []),
      finish: () => request({ type: 'finish' }),
      release: () => {
        if (released) return;
        released = true;
        this.#giveBack(thread);
      },
    };
  }

  /** Stops every thread; requests under way fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const threads = [...this.#all];
    this.#all.clear();
    this.#idle.length = 0;
    for (const thread of threads) {
      clearTimeout(thread.idleTimer);
      this.#fail(thread, new Error('the engine is closing'));
    }
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  #start(): Thread {
    this.#entry ??= builtWorkerEntry('mp3-worker.js', 'MP3 encoder thread');
    // Whatever the encoder prints goes to stderr: in stdio mode, stdout carries the protocol.
    const worker = new Worker(this.#entry, { stdout: true });
    worker.stdout.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    const thread: Thread = { worker, pending: [], failure: undefined, idleTimer: undefined };
    this.#all.add(thread);
    worker.on('message', (reply: EncoderReply) => {
      const waiting = thread.pending.shift();
      if (reply.type === 'encoded') waiting?.resolve(reply.bytes);
      else waiting?.reject(new Error(reply.message));
    });
    worker.on('error', (error) => this.#fail(thread, error));
    worker.on('exit', (code) => this.#fail(thread, new Error(`the MP3 encoder thread exited with code ${code}`)));
    return thread;
  }

  /** Back to the idle threads, its encoder dropped. Replies still due (none, when the stream awaited each) come first, in order. */
  #giveBack(thread: Thread): void {
    if (thread.failure !== undefined || this.#closed) return;
    thread.worker.postMessage({ type: 'reset' } satisfies EncoderRequest);
    thread.worker.unref();
    thread.idleTimer = setTimeout(() => this.#retire(thread), IDLE_MS);
    thread.idleTimer.unref();
    this.#idle.push(thread);
  }

  #retire(thread: Thread): void {
    const index = this.#idle.indexOf(thread);
    if (index < 0) return;
    this.#idle.splice(index, 1);
    this.#all.delete(thread);
    thread.failure = new Error('the MP3 encoder thread was stopped');
    void thread.worker.terminate();
  }

  /** A thread that stopped: what waited on it fails, and it is never leased again. */
  #fail(thread: Thread, error: Error): void {
    thread.failure ??= error;
    for (const waiting of thread.pending.splice(0)) waiting.reject(thread.failure);
    this.#all.delete(thread);
    const index = this.#idle.indexOf(thread);
    if (index >= 0) this.#idle.splice(index, 1);
  }
}
