/** What a reader makes of one source: Markdown for the chunker, with its title and canonical URL. */
export interface ReadDocument {
  readonly title: string;
  readonly markdown: string;
  readonly url: string;
}

export interface SourceReader {
  read(url: string, signal?: AbortSignal): Promise<ReadDocument>;
}

/**
 * A content problem with a source (no transcript, unsupported URL shape, empty page): retrying
 * will not help. The message says what is wrong and what to do. Transport problems are
 * `FetchFailure`s from src/net/http-fetcher.ts instead.
 */
export class SourceError extends Error {
  readonly retryable = false;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SourceError';
  }
}
