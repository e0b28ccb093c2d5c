/**
 * One crawl of one site, breadth-first from the start URL over the pages under it, seeded by the
 * site's sitemaps and kept within its robots.txt. What it found is in `found`; the service stores
 * it, so this module never touches the database.
 *
 * A page counts as found when it answered with HTML (after redirects inside the crawl): those are
 * the URLs worth submitting as website sources. Links that answer 404, a PDF or an image are not.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../log.js';
import { FetchFailure, type FetchOptions, type FetchedResponse, type HttpFetcher } from '../../net/http-fetcher.js';
import { looksLikeHtml, scanLinks } from './links.js';
import { ALLOW_ALL, ROBOTS_USER_AGENT, RobotsUnavailable, fetchRobots, type RobotsRules } from './robots.js';
import type { CrawlScope } from './scope.js';
import { MAX_SITEMAP_BYTES, readSitemap, sitemapText, type Sitemap } from './sitemap.js';
import { Slots } from './slots.js';

/** '' lets a page served without a type through; its text then shows whether it is HTML. */
const HTML_TYPES = ['text/html', 'application/xhtml+xml', ''];
const HTML_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1';
const SITEMAP_ACCEPT = 'application/xml,text/xml;q=0.9,*/*;q=0.1';
/** Sitemaps read per crawl, indexes included. */
const MAX_SITEMAPS = 50;
/** A request that failed in a way that may pass (network, timeout, 429, 5xx) is made once more. */
const RETRIES = 1;
const RETRY_DELAY_MS = 1_000;
const MAX_RETRY_DELAY_MS = 30_000;

export interface CrawlRunSettings {
  readonly scope: CrawlScope;
  readonly linkLimit: number;
  /** Requests of this crawl at once; one when the site asks for a Crawl-delay. */
  readonly parallel: number;
  /** Shared with the service's other crawls: every request, and requests to this crawl's site. */
  readonly allSlots: Slots;
  readonly siteSlots: Slots;
  readonly logger: Logger;
}

export type RunOutcome =
  | { readonly status: 'COMPLETED'; readonly note?: string }
  | { readonly status: 'FAILED'; readonly reason: string }
  /** Stopped from outside (stop or shutdown); whoever stopped it records how it ended. */
  | { readonly status: 'ABORTED' };

/** The start URL cannot be crawled; the crawl fails with this message. */
class StartFailure extends Error {}

type RedirectRefusal = { readonly to: URL; readonly why: 'outside' | 'robots' };

export class CrawlRun {
  /** Pages found: canonical URLs, in the order found, at most the link limit. */
  readonly found: string[] = [];
  #fetcher: HttpFetcher | undefined;
  readonly #settings: CrawlRunSettings;
  readonly #halt = new AbortController();
  #stopped = false;
  /** The link limit ended the crawl while links were left to visit. */
  #cut = false;
  #robots: RobotsRules = ALLOW_ALL;
  #ownSlots: Slots;
  #nextRequestAt = 0;
  #fetched = 0;
  readonly #queue: string[] = [];
  #head = 0;
  /** Canonical URLs considered so far (queued, refused, or reached by a redirect). */
  readonly #seen = new Set<string>();
  readonly #pages = new Set<string>();
  #active = 0;
  #waiting: (() => void)[] = [];

  constructor(settings: CrawlRunSettings) {
    this.#settings = settings;
    this.#ownSlots = new Slots(settings.parallel);
    this.#halt.signal.addEventListener('abort', () => this.#wake(), { once: true });
  }

  /** Requests made for pages (answered or not). */
  get fetched(): number {
    return this.#fetched;
  }

  /** Links waiting to be visited. */
  get queued(): number {
    return this.#queue.length - this.#head;
  }

  /** Stops fetching now: requests under way are aborted, none is started. */
  abort(): void {
    this.#stopped = true;
    this.#halt.abort(new Error('The crawl was stopped'));
  }

  /** Crawls until done, stopped, or at the link limit; rejects only on a bug. */
  async run(fetcher: HttpFetcher): Promise<RunOutcome> {
    const { scope } = this.#settings;
    const { signal } = this.#halt;
    this.#fetcher = fetcher;
    try {
      try {
        this.#robots = await fetchRobots(fetcher, scope.origin, signal);
      } catch (error) {
        if (error instanceof RobotsUnavailable) return { status: 'FAILED', reason: `Could not crawl ${scope.prefix}: ${error.message}` };
        throw error;
      }
      if (!this.#robots.allows(scope.prefix)) {
        return { status: 'FAILED', reason: `The robots.txt of ${scope.origin} does not allow ${ROBOTS_USER_AGENT} to fetch ${scope.prefix}` };
      }
      if (this.#robots.crawlDelayMs > 0) this.#ownSlots = new Slots(1);
      this.#seen.add(scope.prefix);
      await this.#visit(scope.prefix, true);
      const fallback = `${scope.origin}/sitemap.xml`;
      // Read before the crawl fans out, so that once the workers run, what is left to visit is known.
      await this.#seed(this.#robots.sitemaps.length > 0 ? this.#robots.sitemaps : this.#robots.allows(fallback) ? [fallback] : []);
      await Promise.all(Array.from({ length: this.#ownSlots.size }, () => this.#work()));
    } catch (error) {
      if (error instanceof StartFailure) return { status: 'FAILED', reason: error.message };
      if (!signal.aborted) {
        this.#halt.abort(error);
        throw error;
      }
    }
    if (this.#stopped) return { status: 'ABORTED' };
    if (!this.#cut) return { status: 'COMPLETED' };
    return {
      status: 'COMPLETED',
      note: `Stopped at the link limit of ${this.#settings.linkLimit} URLs; ${scope.prefix} has more links that were not visited. Crawl a narrower sub-path to discover the rest.`,
    };
  }

  async #work(): Promise<void> {
    const { signal } = this.#halt;
    try {
      while (!signal.aborted) {
        if (this.#head < this.#queue.length) {
          const url = this.#take();
          await this.#visit(url, false);
          this.#wake();
        } else if (this.#active === 0) {
          this.#wake();
          return;
        } else {
          await new Promise<void>((resolve) => this.#waiting.push(resolve));
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  }

  #take(): string {
    const url = this.#queue[this.#head]!;
    this.#head += 1;
    if (this.#head >= 4096 && this.#head * 2 >= this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    return url;
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }

  async #visit(url: string, start: boolean): Promise<void> {
    let refusal: RedirectRefusal | undefined;
    let response: FetchedResponse;
    this.#active += 1;
    try {
      response = await this.#request(url, {
        accept: HTML_ACCEPT,
        mimeTypes: HTML_TYPES,
        signal: this.#halt.signal,
        followRedirect: (to) => {
          refusal = this.#refusal(to);
          return refusal === undefined;
        },
      });
      this.#fetched += 1;
      this.#read(response, start);
    } catch (error) {
      if (!(error instanceof FetchFailure) || this.#halt.signal.aborted) throw error;
      this.#fetched += 1;
      if (start) throw new StartFailure(startFailure(url, error, refusal));
      this.#settings.logger.debug('crawl: page skipped', { url, reason: error.message });
    } finally {
      this.#active -= 1;
    }
  }

  /** Why a redirect to `to` is not followed, if it is not. */
  #refusal(to: URL): RedirectRefusal | undefined {
    const url = this.#settings.scope.canonical(to);
    if (url === undefined || !this.#settings.scope.admits(url)) return { to, why: 'outside' };
    if (!this.#robots.allows(url.href)) return { to, why: 'robots' };
    return undefined;
  }

  #read(response: FetchedResponse, start: boolean): void {
    const { scope } = this.#settings;
    const page = scope.canonical(response.url);
    if (page === undefined || this.#pages.has(page.href)) return;
    this.#pages.add(page.href);
    this.#seen.add(page.href);
    const text = response.text();
    if (response.mimeType === '' && !looksLikeHtml(text)) {
      if (start) throw new StartFailure(`Could not crawl ${scope.prefix}: ${response.url} is not an HTML page; start the crawl from a web page`);
      return;
    }
    // Links first: whether the limit cuts the crawl short depends on what is left to visit.
    const { base, hrefs } = scanLinks(text);
    const baseUrl = (base === undefined ? undefined : scope.canonical(base, page)) ?? page;
    for (const href of hrefs) this.#enqueue(href, baseUrl);
    this.#found(page.href);
  }

  #enqueue(href: string, base: URL | undefined): void {
    const { scope } = this.#settings;
    const url = scope.canonical(href, base);
    if (url === undefined) return;
    const key = url.href;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    if (scope.admits(url) && this.#robots.allows(key)) this.#queue.push(key);
  }

  #found(url: string): void {
    const { linkLimit } = this.#settings;
    if (this.found.length >= linkLimit) return;
    this.found.push(url);
    if (this.found.length < linkLimit) return;
    this.#cut = this.#head < this.#queue.length || this.#active > 1;
    this.#halt.abort(new Error('The link limit was reached'));
  }

  /**
   * Reads the sitemaps, indexes included, and queues the pages they list that belong to the crawl;
   * no further sitemap once more pages are queued than the crawl may find.
   */
  async #seed(first: readonly string[]): Promise<void> {
    const { signal } = this.#halt;
    const pending = [...first];
    const read = new Set<string>();
    while (pending.length > 0 && read.size < MAX_SITEMAPS && this.queued <= this.#settings.linkLimit) {
      const url = pending.shift()!;
      if (read.has(url)) continue;
      read.add(url);
      let sitemap: Sitemap | undefined;
      try {
        sitemap = readSitemap(sitemapText(await this.#request(url, { accept: SITEMAP_ACCEPT, signal, maxBytes: MAX_SITEMAP_BYTES })));
      } catch (error) {
        if (signal.aborted) throw error;
        this.#settings.logger.debug('crawl: sitemap skipped', { url, reason: error instanceof Error ? error.message : String(error) });
        continue;
      }
      if (sitemap?.kind === 'index') pending.push(...sitemap.locations);
      else if (sitemap?.kind === 'urlset') for (const location of sitemap.locations) this.#enqueue(location, undefined);
    }
  }

  /** A GET within this crawl's limits and the site's Crawl-delay, tried again once if it may pass. */
  async #request(url: string, options: FetchOptions): Promise<FetchedResponse> {
    const { signal } = this.#halt;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.#attempt(url, options);
      } catch (error) {
        if (!(error instanceof FetchFailure) || !error.retryable || attempt >= RETRIES || signal.aborted) throw error;
        const wait = Math.min(error.retryAfterMs ?? RETRY_DELAY_MS, MAX_RETRY_DELAY_MS);
        // The site asked everyone to slow down, not just this request.
        if (error.status === 429 || error.status === 503) this.#nextRequestAt = Math.max(this.#nextRequestAt, Date.now() + wait);
        await sleep(wait, undefined, { signal });
      }
    }
  }

  async #attempt(url: string, options: FetchOptions): Promise<FetchedResponse> {
    const { signal } = this.#halt;
    const { siteSlots, allSlots } = this.#settings;
    const own = this.#ownSlots;
    await own.acquire(signal);
    try {
      const wait = this.#nextRequestAt - Date.now();
      if (wait > 0) await sleep(wait, undefined, { signal });
      this.#nextRequestAt = Math.max(this.#nextRequestAt, Date.now() + this.#robots.crawlDelayMs);
      await siteSlots.acquire(signal);
      try {
        await allSlots.acquire(signal);
        try {
          return await this.#fetcher!.get(url, options);
        } finally {
          allSlots.release();
        }
      } finally {
        siteSlots.release();
      }
    } finally {
      own.release();
    }
  }
}

function startFailure(start: string, error: FetchFailure, refusal: RedirectRefusal | undefined): string {
  if (error.kind === 'redirect_refused' && refusal !== undefined) {
    const target = refusal.to.href;
    return refusal.why === 'robots'
      ? `${start} redirects to ${target}, which the site's robots.txt does not allow ${ROBOTS_USER_AGENT} to fetch`
      : `${start} redirects to ${target}, outside the URLs this crawl may visit; start the crawl from ${target}`;
  }
  return `Could not crawl ${start}: ${error.message}`;
}
