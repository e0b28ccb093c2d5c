/**
 * The messages between the engine and its extraction workers (extraction-pool.ts and
 * extraction-worker.ts): a worker may hold several tasks, runs them one at a time in the order
 * they came, and answers each by its id.
 */
import type { DocumentKind, ExtractedDocument } from './document.js';
import type { ExtractedHtml } from './html.js';
import type { MarkupFormat } from './markup.js';
import type { WebPage } from './page.js';

export type ExtractionTask =
  | { readonly id: number; readonly kind: 'page'; readonly page: WebPage }
  | { readonly id: number; readonly kind: 'markup'; readonly markup: string; readonly format: MarkupFormat }
  | { readonly id: number; readonly kind: 'document'; readonly documentKind: DocumentKind; readonly data: Uint8Array };

/** What a task of each kind resolves to. */
export interface ExtractionResults {
  readonly page: ExtractedHtml;
  readonly markup: string;
  readonly document: ExtractedDocument;
}

/** An error as it crosses the thread boundary: SourceErrors are content problems and keep their kind. */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
}

export type WorkerMessage =
  /** The worker has loaded its modules and takes tasks. */
  | { readonly type: 'ready' }
  | { readonly type: 'done'; readonly id: number; readonly result: ExtractionResults[keyof ExtractionResults] }
  | { readonly type: 'failed'; readonly id: number; readonly error: SerializedError };
