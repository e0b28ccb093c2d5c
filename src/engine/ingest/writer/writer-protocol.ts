/**
 * The messages between the serving thread (writer.ts) and the writer thread (writer-thread.ts),
 * which works through the job queue over a database connection of its own.
 */
import type { LogLevel } from '../../../log.js';
import type { EmbeddingsSettings } from '../../../providers/embeddings.js';
import type { ExtractionSettings } from '../extract/extraction-pool.js';
import type { ProcessorLimits } from '../processor.js';

/** What the writer thread is started with (its workerData): plain data, copied to the thread. */
export interface WriterSettings {
  readonly dataDir: string;
  /** The PostgreSQL store's URL, when the engine runs on one (else the data directory's SQLite file). */
  readonly databaseUrl?: string;
  readonly allowPrivateNetwork: boolean;
  readonly youtubeBaseUrl?: string;
  readonly extraction?: ExtractionSettings;
  readonly processing?: ProcessorLimits;
  readonly embeddings?: EmbeddingsSettings;
  /** The lease owners of writer threads of this process that crashed: their jobs are taken over at once. */
  readonly takeOver: readonly string[];
  /** With nothing under way and nothing queued for this long, the thread stops (and starts again with the next work). */
  readonly idleMs: number;
}

export type ToWriter =
  /** There may be new work in the queue. */
  | { readonly type: 'kick' }
  /** Commit what was read, give the rest back, close the connection and stop. */
  | { readonly type: 'close' };

export type FromWriter =
  /** The thread has opened the database and takes work under this lease owner. */
  | { readonly type: 'ready'; readonly owner: string }
  | { readonly type: 'log'; readonly level: LogLevel; readonly message: string; readonly fields?: Record<string, unknown> }
  /** It stops: asked to, or idle; it holds no lease any more. */
  | { readonly type: 'stopping' };
