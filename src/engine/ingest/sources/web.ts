/**
 * Website sources: one page fetched over HTTP(S) and turned into Markdown by the page extractor
 * (in the engine, the extraction workers, which also decode it): HTML through the content
 * extractor, plain text and Markdown as they are.
 */
import { FetchFailure, type HttpFetcher } from '../../../net/http-fetcher.js';
import type { PageExtractor } from '../extract/extraction-pool.js';
import { SourceError, type ReadDocument, type SourceReader } from './types.js';

/** '' lets a server that names no type through; the body then shows whether it is HTML. */
const READABLE_TYPES = ['text/html', 'application/xhtml+xml', 'text/plain', 'text/markdown', 'text/x-markdown', ''];

const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/markdown;q=0.8,text/plain;q=0.7,*/*;q=0.1';

export class WebPageReader implements SourceReader {
  readonly #fetcher: HttpFetcher;
  readonly #extractor: PageExtractor;

  constructor(fetcher: HttpFetcher, extractor: PageExtractor) {
    this.#fetcher = fetcher;
    this.#extractor = extractor;
  }

  async read(url: string, signal?: AbortSignal, fetched?: () => void): Promise<ReadDocument> {
    const response = await this.#fetch(url, signal);
    fetched?.();
    const { title, markdown } = await this.#extractor.extractPage({
      url: response.url,
      mimeType: response.mimeType,
      contentType: response.headers['content-type'],
      body: response.body,
    });
    if (markdown.trim() === '') {
      throw new SourceError(
        `${response.url} has no text to index; if the page builds its content with JavaScript, add a URL that serves the text itself`,
      );
    }
    return { title, markdown, url: response.url };
  }

  async #fetch(url: string, signal: AbortSignal | undefined) {
    try {
      return await this.#fetcher.get(url, { accept: ACCEPT, mimeTypes: READABLE_TYPES, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (error instanceof FetchFailure && error.kind === 'unsupported_content') {
        throw new FetchFailure('unsupported_content', error.url, `${error.message}. Website sources are web pages (HTML, plain text, Markdown); add PDF, Word and Excel files with \`guru-mcp upload\``, { cause: error });
      }
      throw error;
    }
  }
}

/**
 * The form under which a website source is stored and compared, so that one page is not added
 * twice: lower-case scheme and host, no default port, no fragment, no trailing slash (except the
 * root), the query kept as it is.
 */
export function normalizeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new SourceError(`${url} is not a valid http(s) URL`);
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    throw new SourceError(`${url} is not a valid http(s) URL`);
  }
  parsed.hash = '';
  if (parsed.search === '') parsed.search = '';
  // The path stays as given, trailing slash included: `/docs/` and `/docs` may be different
  // resources (or one a 404), and the canonical form is also the address that is fetched.
  return parsed.href;
}
