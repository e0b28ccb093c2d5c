/**
 * robots.txt (RFC 9309) for the crawler's user agent `guru-mcp`: which URLs it may fetch, how long
 * to wait between requests, and where the sitemaps are.
 */
import { createRequire } from 'node:module';
import { FetchFailure, type HttpFetcher } from '../../net/http-fetcher.js';

/** The part of robots-parser's Robot used here. */
interface ParsedRobots {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
  getCrawlDelay(userAgent?: string): number | undefined;
  getSitemaps(): string[];
}

// robots-parser is CommonJS whose typings claim a default export (see notes/dependencies.md §10).
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, contents: string) => ParsedRobots;

export const ROBOTS_USER_AGENT = 'guru-mcp';

/** A site asking for more than this between requests gets this; 1500 pages at 5 s take two hours. */
export const MAX_CRAWL_DELAY_MS = 5_000;

/** RFC 9309 asks crawlers to read at least 500 KiB; the rest of a longer file is not needed. */
const MAX_ROBOTS_BYTES = 512 * 1024;

export interface RobotsRules {
  allows(url: string): boolean;
  /** Wait between two requests to the site: its Crawl-delay, at most MAX_CRAWL_DELAY_MS; 0 if none. */
  readonly crawlDelayMs: number;
  /** `Sitemap:` lines, as absolute URLs. */
  readonly sitemaps: readonly string[];
}

export const ALLOW_ALL: RobotsRules = { allows: () => true, crawlDelayMs: 0, sitemaps: [] };

export function parseRobots(robotsUrl: string, text: string): RobotsRules {
  const robots = robotsParser(robotsUrl, text);
  const delaySeconds = robots.getCrawlDelay(ROBOTS_USER_AGENT);
  const crawlDelayMs =
    delaySeconds === undefined || !Number.isFinite(delaySeconds) || delaySeconds <= 0 ? 0 : Math.min(delaySeconds * 1000, MAX_CRAWL_DELAY_MS);
  return {
    // undefined: a URL of another site, which this file has no say over.
    allows: (url) => robots.isAllowed(url, ROBOTS_USER_AGENT) !== false,
    crawlDelayMs,
    sitemaps: robots.getSitemaps().flatMap((sitemap) => {
      try {
        return [new URL(sitemap, robotsUrl).href];
      } catch {
        return [];
      }
    }),
  };
}

/** Thrown when the site cannot be crawled at all: robots.txt unreachable, or refused for now. */
export class RobotsUnavailable extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RobotsUnavailable';
  }
}

/**
 * The site's rules. A missing robots.txt (4xx) allows everything; a site that cannot be reached,
 * or answers robots.txt with a server error, is not crawled (RFC 9309 §2.3.1.4).
 */
export async function fetchRobots(fetcher: HttpFetcher, origin: string, signal: AbortSignal): Promise<RobotsRules> {
  const robotsUrl = `${origin}/robots.txt`;
  let text: string;
  try {
    const response = await fetcher.get(robotsUrl, { accept: 'text/plain,*/*;q=0.1', signal, maxBytes: MAX_ROBOTS_BYTES });
    text = response.text();
  } catch (error) {
    if (!(error instanceof FetchFailure)) throw error;
    if (error.kind === 'http_status' && error.status !== undefined && error.status >= 400 && error.status < 500 && error.status !== 429) {
      return ALLOW_ALL;
    }
    // Content that cannot be read as rules says nothing against crawling.
    if (error.kind === 'too_large' || error.kind === 'unsupported_content' || error.kind === 'bad_response') return ALLOW_ALL;
    if (error.kind === 'http_status') {
      throw new RobotsUnavailable(`${error.message}; a site whose robots.txt fails is not crawled until it answers`, { cause: error });
    }
    throw new RobotsUnavailable(error.message, { cause: error });
  }
  return parseRobots(robotsUrl, text);
}
