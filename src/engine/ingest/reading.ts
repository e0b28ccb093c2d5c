/**
 * What a data source holds now, as Markdown: stored text for texts and
 * uploaded documents, and for URL sources whatever their reader fetches.
 * Readers, the HTTP client and the extraction workers load on first use, so
 * an engine that only holds texts never loads them.
 */
import type { DataSourceType } from '../../core/schemas.js';
import type { HttpFetcher } from '../../net/http-fetcher.js';
import type { DocumentKind, ExtractedDocument } from './extract/document.js';
import type { ExtractionPool, ExtractionSettings } from './extract/extraction-pool.js';
import type { IntegrationCredentials, IntegrationKind } from '../store/integrations.js';
import type { SourceRow } from '../store/sources.js';
import { SourceError, type SourceReader } from './sources/types.js';

export interface SourceText {
  readonly title: string;
  readonly markdown: string;
}

export interface ReadingOptions {
  readonly allowPrivateNetwork: boolean;
  /** Where YouTube requests go instead of youtube.com (a stand-in in tests, or a proxy). */
  readonly youtubeBaseUrl?: string;
  /** The worker threads that turn pages and documents into Markdown. */
  readonly extraction?: ExtractionSettings;
}

/** Types whose text is stored when they are added; processing them needs no network. */
const STORED: ReadonlySet<DataSourceType> = new Set(['TEXT', 'PDF', 'WORD', 'EXCEL']);

export const isStoredType = (type: DataSourceType): boolean => STORED.has(type);

const INTEGRATION_NAMES: Record<IntegrationKind, string> = { JIRA: 'Jira', ZENDESK: 'Zendesk', CONFLUENCE: 'Confluence' };

export class SourceReading {
  readonly #options: ReadingOptions;
  readonly #credentials: (guruId: number, kind: IntegrationKind) => Promise<IntegrationCredentials | undefined>;
  #fetcher: Promise<HttpFetcher> | undefined;
  /** The HTTP client of reads queued by a process that might not reach private addresses, when this one may. */
  #publicFetcher: Promise<HttpFetcher> | undefined;
  #extraction: Promise<ExtractionPool> | undefined;
  #closed = false;
  /** Readers shared by the sources of a type, apart for reads that may reach private addresses and those that may not. */
  #shared = new Map<`${DataSourceType}:${boolean}`, Promise<SourceReader>>();

  constructor(options: ReadingOptions, credentials: (guruId: number, kind: IntegrationKind) => Promise<IntegrationCredentials | undefined>) {
    this.#options = options;
    this.#credentials = credentials;
  }

  /**
   * `fetched`: see SourceReader.read. `queuedWithPrivateNetwork`: whether the process that queued
   * the read might reach loopback and private addresses; they are reached only when this one may
   * too, so that which process does the work never changes what is allowed.
   */
  async read(source: SourceRow, signal: AbortSignal, fetched?: () => void, queuedWithPrivateNetwork = true): Promise<SourceText> {
    if (isStoredType(source.type)) return { title: source.title ?? source.name ?? '', markdown: source.content ?? '' };
    if (source.url === null) throw new SourceError(`Data source ${source.id} has no URL to read.`);
    const privateNetwork = this.#options.allowPrivateNetwork && queuedWithPrivateNetwork;
    const reader = await this.#readerFor(source, privateNetwork);
    try {
      const document = await reader.read(source.url, signal, fetched);
      return { title: document.title, markdown: document.markdown };
    } catch (error) {
      const blocked = error instanceof Error && (error as Error & { kind?: unknown }).kind === 'blocked_address';
      if (!blocked || privateNetwork === this.#options.allowPrivateNetwork) throw error;
      // This process would have let it through: say that the permission was missing where the source was added.
      throw new SourceError(
        `${error.message}. This server allows them, but the source was added or reindexed by a process without GURU_ALLOW_PRIVATE_NETWORK=1; reindex it from one with the setting.`,
        { cause: error },
      );
    }
  }

  /** The text of an uploaded document, extracted in a worker thread; content problems throw a `SourceError`. */
  async extractDocument(kind: DocumentKind, data: Uint8Array): Promise<ExtractedDocument> {
    return (await this.#extractionPool()).extractDocument(kind, data);
  }

  /**
   * The text of an HTML file or text, through the extraction web pages get (in a worker thread):
   * its content without menus and markup. `name` stands in for the page's address. A file's bytes
   * are decoded as a page's are (byte-order mark, the charset it declares, else UTF-8).
   */
  async extractHtml(name: string, html: string | Uint8Array): Promise<SourceText> {
    const page =
      typeof html === 'string'
        ? { url: name, mimeType: 'text/html', contentType: 'text/html; charset=utf-8', body: Buffer.from(html, 'utf8') }
        : { url: name, mimeType: 'text/html', contentType: undefined, body: html };
    return (await this.#extractionPool()).extractPage(page);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const fetchers = [this.#fetcher, this.#publicFetcher];
    const extraction = this.#extraction;
    this.#fetcher = undefined;
    this.#publicFetcher = undefined;
    this.#extraction = undefined;
    this.#shared.clear();
    await Promise.all([...fetchers.map((fetcher) => fetcher?.then((it) => it.close())), extraction?.then((it) => it.close())]);
  }

  #readerFor(source: SourceRow, privateNetwork: boolean): Promise<SourceReader> {
    switch (source.type) {
      case 'WEBSITE':
        return this.#sharedReader('WEBSITE', privateNetwork, async () => {
          const { WebPageReader } = await import('./sources/web.js');
          return new WebPageReader(await this.#http(privateNetwork), await this.#extractionPool());
        });
      case 'YOUTUBE':
        return this.#sharedReader('YOUTUBE', privateNetwork, async () => {
          const { YouTubeReader } = await import('./sources/youtube.js');
          const baseUrl = this.#options.youtubeBaseUrl;
          return new YouTubeReader(await this.#http(privateNetwork), baseUrl === undefined ? {} : { baseUrl });
        });
      case 'JIRA':
      case 'ZENDESK':
      case 'CONFLUENCE':
        return this.#integrationReader(source.guru_id, source.type, privateNetwork);
      default:
        throw new SourceError(`Data sources of type ${source.type} are not read from a URL.`);
    }
  }

  #sharedReader(type: DataSourceType, privateNetwork: boolean, make: () => Promise<SourceReader>): Promise<SourceReader> {
    const key = `${type}:${privateNetwork}` as const;
    let reader = this.#shared.get(key);
    if (!reader) {
      reader = make();
      this.#shared.set(key, reader);
    }
    return reader;
  }

  /** Integration readers carry the guru's credentials, read afresh for every source. */
  async #integrationReader(guruId: number, kind: IntegrationKind, privateNetwork: boolean): Promise<SourceReader> {
    const credentials = await this.#credentials(guruId, kind);
    if (!credentials) {
      throw new SourceError(
        `The ${INTEGRATION_NAMES[kind]} integration of this guru is not set up; set it with \`guru-mcp integration set\` and reindex the source.`,
      );
    }
    const settings = { baseUrl: credentials.baseUrl, apiToken: credentials.token, ...(credentials.email === null ? {} : { email: credentials.email }) };
    const http = await this.#http(privateNetwork);
    switch (kind) {
      case 'JIRA':
        return new (await import('./sources/jira.js')).JiraReader(http, settings);
      case 'ZENDESK':
        return new (await import('./sources/zendesk.js')).ZendeskReader(http, await this.#extractionPool(), { ...settings, email: credentials.email ?? '' });
      case 'CONFLUENCE':
        return new (await import('./sources/confluence.js')).ConfluenceReader(http, await this.#extractionPool(), settings);
    }
  }

  #extractionPool(): Promise<ExtractionPool> {
    if (this.#closed) return Promise.reject(new Error('the engine is closing'));
    this.#extraction ??= import('./extract/extraction-pool.js').then(({ ExtractionPool }) => new ExtractionPool(this.#options.extraction));
    return this.#extraction;
  }

  /** The engine's one HTTP client, made on first use; crawling and video lists use it too. */
  http(): Promise<HttpFetcher> {
    this.#fetcher ??= import('../../net/http-fetcher.js').then(
      ({ HttpFetcher }) => new HttpFetcher({ allowPrivateNetwork: this.#options.allowPrivateNetwork }),
    );
    return this.#fetcher;
  }

  /** The client for a read that may (or may not) reach private addresses: the engine's, or one that refuses them. */
  #http(privateNetwork: boolean): Promise<HttpFetcher> {
    if (privateNetwork === this.#options.allowPrivateNetwork) return this.http();
    this.#publicFetcher ??= import('../../net/http-fetcher.js').then(({ HttpFetcher }) => new HttpFetcher({ allowPrivateNetwork: false }));
    return this.#publicFetcher;
  }
}
