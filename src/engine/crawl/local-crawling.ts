/**
 * Website crawls: started, polled and stopped per guru. The crawls themselves
 * (durable, in the background) are run by the CrawlService.
 */
import type { Crawling } from '../../core/assistant.js';
import { StartCrawlRequest, type Crawl } from '../../core/schemas.js';
import { parseRequest } from '../../core/validate.js';
import { describeError, type Logger } from '../../log.js';
import type { HttpFetcher } from '../../net/http-fetcher.js';
import type { EngineContext } from '../context.js';
import type { LocalGurus } from '../gurus/local-gurus.js';
import { CrawlService } from './crawler.js';

export class LocalCrawling implements Crawling {
  readonly #gurus: LocalGurus;
  readonly #crawls: CrawlService;
  readonly #logger: Logger;
  /** The recovery started by recover(), settled (its failure logged) when it is done. */
  #recovery: Promise<unknown> = Promise.resolve();

  constructor(context: EngineContext, gurus: LocalGurus, http: () => Promise<HttpFetcher>) {
    this.#gurus = gurus;
    this.#logger = context.logger;
    this.#crawls = new CrawlService(context.sql, http, context.logger, { clock: context.clock });
  }

  async startCrawl(slug: string, input: StartCrawlRequest): Promise<Crawl> {
    const guru = await this.#gurus.find('start_crawl', slug);
    const request = parseRequest(StartCrawlRequest, input, 'start_crawl');
    return this.#crawls.start(guru.id, request.url, request.ignore_query_params);
  }

  async crawlStatus(slug: string, crawlId: number): Promise<Crawl> {
    return this.#crawls.get((await this.#gurus.find('crawl_status', slug)).id, crawlId);
  }

  async stopCrawl(slug: string, crawlId: number): Promise<Crawl> {
    return this.#crawls.stop((await this.#gurus.find('stop_crawl', slug)).id, crawlId);
  }

  /** Stops the guru's running crawl (the guru is being deleted). */
  stopCrawlsOf(guruId: number): Promise<void> {
    return this.#crawls.stopRunning(guruId);
  }

  /**
   * Starts ending the crawls an earlier run left unfinished, in the background (a status read or a
   * new start ends such a crawl of its own too); a failure is logged. close() waits for it.
   */
  recover(): void {
    this.#recovery = this.#crawls.recover().catch((error: unknown) => {
      this.#logger.error('could not end the crawls an earlier run left unfinished', { error: describeError(error) });
    });
  }

  async close(): Promise<void> {
    await this.#recovery;
    await this.#crawls.close();
  }
}
