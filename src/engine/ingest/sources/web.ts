/**
 * Website sources: one page fetched over HTTP(S) and turned into Markdown. HTML goes through the
 * content extractor (in the engine, the extraction workers); plain text and Markdown are taken as
 * they are.
 */
import { FetchFailure, type HttpFetcher } from '../../../net/http-fetcher.js';
import type { HtmlExtractor } from '../extract/extraction-pool.js';
import { SourceError, type ReadDocument, type SourceReader } from './types.js';

const HTML_TYPES = ['text/html', 'application/xhtml+xml'];
const TEXT_TYPES = ['text/plain', 'text/markdown', 'text/x-markdown'];
/** '' lets a server that names no type through; the body then shows whether it is HTML. */
const READABLE_TYPES = [...HTML_TYPES, ...TEXT_TYPES, ''];

const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/markdown;q=0.8,text/plain;q=0.7,*/*;q=0.1';

export class WebPageReader implements SourceReader {
  readonly #fetcher: HttpFetcher;
  readonly #extractor: HtmlExtractor;

  constructor(fetcher: HttpFetcher, extractor: HtmlExtractor) {
    this.#fetcher = fetcher;
    this.#extractor = extractor;
  }

  async read(url: string, signal?: AbortSignal): Promise<ReadDocument> {
    const response = await this.#fetch(url, signal);
    const text = response.text();
    const { title, markdown } =
      HTML_TYPES.includes(response.mimeType) || (response.mimeType === '' && looksLikeHtml(text))
        ? await this.#extractor.extractHtml(text, response.url)
        : { title: firstHeading(text) ?? fileName(response.url), markdown: text.trim() };
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

function looksLikeHtml(text: string): boolean {
  return /^\s*(?:<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(text.slice(0, 1024));
}

/** The text of the first Markdown heading (ATX `# Title` or setext `Title` over `===`). */
function firstHeading(text: string): string | undefined {
  const heading = /^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$|^ {0,3}(\S.*?)[ \t]*\r?\n {0,3}(?:=+|-+)[ \t]*$/m.exec(text);
  const title = (heading?.[1] ?? heading?.[2])?.trim();
  return title === '' ? undefined : title;
}

/** The last segment of the URL's path, decoded, else its host. */
function fileName(url: string): string {
  const { pathname, host } = new URL(url);
  const segment = pathname.split('/').filter((part) => part !== '').at(-1);
  if (segment === undefined) return host;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
