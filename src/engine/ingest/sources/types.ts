/** What a reader makes of one source: Markdown for the chunker, with its title and canonical URL. */
export interface ReadDocument {
  readonly title: string;
  readonly markdown: string;
  readonly url: string;
}

export interface SourceReader {
  /**
   * `fetched`, when the reader calls it, says that it needs nothing more from the source's host
   * (what is left is its own work, extraction say): the host's place goes to the next source.
   */
  read(url: string, signal?: AbortSignal, fetched?: () => void): Promise<ReadDocument>;
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
