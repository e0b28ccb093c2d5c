/**
 * Submitting a long list of URLs of one kind as data sources (a crawl's pages, a
 * channel's videos), in batches. A guru holds a limited number of sources of each
 * kind, and a request that would pass the limit is refused whole; batches let
 * every URL that fits in be added, in order, and name the ones that did not.
 */
import type { DataSources } from './assistant.js';
import { isGuruError } from './errors.js';
import type { CreatedDataSource } from './schemas.js';

/** The URL lists of a create request. */
export type UrlField = 'website_urls' | 'youtube_urls' | 'jira_urls' | 'zendesk_urls' | 'confluence_urls';

/** URLs per request: small enough that a refusal costs a few bisecting retries, large enough for few calls. */
export const URL_BATCH_SIZE = 100;

export interface UrlRefusal {
  /** The URLs not added: the one the service refused and every one after it, in order. */
  readonly urls: readonly string[];
  /** The service's message, e.g. "Invalid request parameters". */
  readonly message: string;
  /** What it said about the cause, when it did (the local engine names the limit). */
  readonly hint?: string;
}

export interface UrlSubmission {
  /** One result per URL accepted, in order: status `success` (new source) or `exists`. */
  readonly results: CreatedDataSource[];
  /** Undefined when every URL was accepted. */
  readonly refusal: UrlRefusal | undefined;
}

export interface SubmitUrlsOptions {
  /** Labels attached to every source added. */
  readonly labels?: readonly string[];
  readonly batchSize?: number;
}

/** A request refused for what it asked (400): a smaller one may pass. Anything else ends the submission. */
const isRefusal = (error: unknown): boolean => isGuruError(error) && error.status === 400;

interface BatchOutcome {
  readonly results: CreatedDataSource[];
  /** Index in the batch of the first URL not added, with the error that stopped it. */
  readonly stop?: { readonly index: number; readonly error: unknown };
}

/**
 * Submits `urls` as `field` sources of `guru`, a batch at a time. A refused batch
 * is split in halves until the URLs that fit are in; the first URL that does not
 * fit ends the submission (the rest would pass the limit too). The first error
 * seen is reported, since it names the whole batch's count. A failure that is no
 * refusal (a wrong key, an unreachable service) ends it as well; errors that are
 * not GuruErrors are thrown.
 */
export async function submitUrls(
  sources: DataSources,
  guru: string,
  field: UrlField,
  urls: readonly string[],
  options: SubmitUrlsOptions = {},
): Promise<UrlSubmission> {
  const size = Math.max(1, options.batchSize ?? URL_BATCH_SIZE);
  const create = (batch: readonly string[]) =>
    sources.createDataSources(guru, { [field]: [...batch], ...(options.labels === undefined ? {} : { labels: [...options.labels] }) });

  async function submitBatch(batch: readonly string[]): Promise<BatchOutcome> {
    try {
      return { results: await create(batch) };
    } catch (error) {
      if (!isGuruError(error)) throw error;
      if (!isRefusal(error) || batch.length === 1) return { results: [], stop: { index: 0, error } };
      // A refusal further down names fewer URLs than this one; any other failure is news.
      const reported = (stop: { readonly error: unknown }) => (isRefusal(stop.error) ? error : stop.error);
      const half = Math.ceil(batch.length / 2);
      const first = await submitBatch(batch.slice(0, half));
      if (first.stop !== undefined) return { results: first.results, stop: { index: first.stop.index, error: reported(first.stop) } };
      const second = await submitBatch(batch.slice(half));
      return {
        results: [...first.results, ...second.results],
        ...(second.stop === undefined ? {} : { stop: { index: half + second.stop.index, error: reported(second.stop) } }),
      };
    }
  }

  const results: CreatedDataSource[] = [];
  for (let start = 0; start < urls.length; start += size) {
    const outcome = await submitBatch(urls.slice(start, start + size));
    results.push(...outcome.results);
    if (outcome.stop !== undefined) {
      const error = outcome.stop.error;
      const { message, hint } = isGuruError(error) ? error : { message: String(error), hint: undefined };
      return { results, refusal: { urls: urls.slice(start + outcome.stop.index), message, ...(hint === undefined ? {} : { hint }) } };
    }
  }
  return { results, refusal: undefined };
}
