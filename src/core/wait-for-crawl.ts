/** Following a crawl until it ends, by polling its status the way any client of the spec can. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Crawling } from './assistant.js';
import type { Crawl } from './schemas.js';

export interface WaitForCrawlOptions {
  readonly signal?: AbortSignal;
  /** Called after every look with the number of URLs discovered so far. */
  readonly onProgress?: (discovered: number) => void;
  /** Stop waiting after this long, answering the crawl as it is then (still RUNNING). */
  readonly timeLimitMs?: number;
  readonly intervalMs?: number;
}

export async function waitForCrawl(crawling: Crawling, guru: string, crawlId: number, options: WaitForCrawlOptions = {}): Promise<Crawl> {
  const deadline = Date.now() + (options.timeLimitMs ?? Infinity);
  for (;;) {
    options.signal?.throwIfAborted();
    const crawl = await crawling.crawlStatus(guru, crawlId);
    options.onProgress?.(crawl.discovered_urls.length);
    if (crawl.status !== 'RUNNING' || Date.now() >= deadline) return crawl;
    await sleep(options.intervalMs ?? 500, undefined, { signal: options.signal });
  }
}
